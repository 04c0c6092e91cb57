// The threads that serve gang seats (gang.h): pool workers, gang threads beyond the budget, and
// any other thread on its first seat. Each has an id (1, 2, ...); per id, below kTrackedIds, on a
// line of its own (each thread writes its own entry, on every pool call it joins; readers are
// gangs' slow paths):
//  - busy: running a seat or, as a pool worker, a share of a pool call (note_pool_call): a seat
//    does not wait for a thread that is busy with other work (another gang, a nested region,
//    another caller's pthreadpool call);
//  - alive: a pool worker or gang thread that exists now: with busy, who is idle (idle()).
// And the pause count: a thread that served a seat remembers the pause count then, and ends at
// its next look for a seat once a pause moved it (retire_if_paused()).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/cache_line.h"
#include "core/tls.h"

namespace poolshim::core::servers {
#pragma GCC visibility push(hidden)

constexpr uint32_t kTrackedIds = 1024;

// The calling thread's id, given on first use.
uint32_t my_id();
// The calling thread's id, or 0 when it has none yet.
uint32_t id_if_any();

// Marks server `id` busy or not (ids past kTrackedIds are not tracked: never busy, never idle).
void set_busy(uint32_t id, bool busy);
bool busy(uint32_t id);
void set_alive(uint32_t id, bool alive);

// Pool workers and gang threads alive and not busy (in no seat, no pool call), and pool workers
// started and not yet looking: the threads that will look for an open seat soon. Busy threads
// are counted rather than idle ones, so a thread descheduled between two looks still counts.
size_t idle();

// Pauses so far (pause(): the threads that served a seat end).
uint32_t pauses();
// The calling thread serves a seat now: it counts as a server of the current pause count.
void note_served();
// True when a pause came after the calling thread served a seat: it must end (it stops counting
// as a server).
bool retire_if_paused();
// A pause: bumps the count; returns it.
uint32_t begin_pause();
// Threads alive that served a seat since the last pause they saw.
uint32_t served_threads();

// fork(): the child has none of the parent's servers.
void atfork_child();

#pragma GCC visibility pop
}  // namespace poolshim::core::servers
