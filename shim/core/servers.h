// The threads that serve gang seats (gang.h): pool workers, gang threads beyond the budget, and
// any other thread on its first seat. Each has an id (1, 2, ...); per id, below kTrackedIds, on a
// line of its own (each thread writes its own entry, on every pool call it joins; readers are
// gangs' slow paths):
//  - busy: running a seat or, as a pool worker, a share of a pool call (note_pool_call): a seat
//    does not wait for a thread that is busy with other work (another gang, a nested region,
//    another caller's pthreadpool call);
//  - alive: a pool worker or gang thread that exists now: with busy, who is idle (idle()).
//  - nap, napping: a gang thread asleep, so that a gang can wake the one thread it prefers
//    (gang_threads.h);
//  - keeper: the family (gang_family.h) the thread is kept for, 0 when free: a kept thread serves
//    only its family's gangs. Written by the thread itself when it takes a keeping gang's seat
//    (0 to the family), and back to 0 when its keeper ends or a pause comes.
// And the pause count: a thread that served a seat remembers the pause count then, and ends at
// its next look for a seat once a pause moved it (retire_if_paused()).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/cache_line.h"
#include "core/tls.h"
#include "base/fork_hooks.h"

namespace poolshim::core::servers {
#pragma GCC visibility push(hidden)

constexpr uint32_t kTrackedIds = 1024;

struct alignas(kCacheLine) Server {
  std::atomic<bool> busy{false};
  std::atomic<bool> alive{false};
  std::atomic<uint32_t> keeper{0};
  // The dock (gang_seats.h, "Docking"): 0, kDocked while the pool worker spins idle, or the seat a
  // gang's start gave it meanwhile. Written by the worker (dock, undock) and by starts (assign).
  std::atomic<uint64_t> dock{0};
  // A gang thread's nap (gang_threads.cpp): napping while it sleeps on nap, its futex word, which
  // a waker bumps. Written by the thread (napping) and by wakers (nap).
  std::atomic<uint32_t> nap{0};
  std::atomic<bool> napping{false};
};
constexpr uint64_t kDocked = 1;
extern Server g_server[kTrackedIds];
// The next id to give; a pool worker's or gang thread's at its start, any other thread's on its
// first serve.
extern std::atomic<uint32_t> g_next_id;
extern __thread uint32_t t_id POOLSHIM_FAST_TLS;
extern std::atomic<uint32_t> g_pause;           // pauses so far
extern std::atomic<uint32_t> g_served_threads;  // threads alive that served a seat
// The pause count when this thread last served a seat, plus 1 (0: never served).
extern __thread uint32_t t_served POOLSHIM_FAST_TLS;

// The calling thread's id, given on first use.
inline uint32_t my_id() {
  if (t_id == 0) t_id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  return t_id;
}
// The calling thread's id, or 0 when it has none yet.
inline uint32_t id_if_any() { return t_id; }

// Marks server `id` busy or not (ids past kTrackedIds are not tracked: never busy, never idle).
// Release and acquire (plain moves on x86): a reader that sees the mark sees what the thread did
// before it (gang_seats.cpp, preferred_busy: its claim of a seat).
inline void set_busy(uint32_t id, bool busy) {
  if (id != 0 && id < kTrackedIds) g_server[id].busy.store(busy, std::memory_order_release);
}
inline bool busy(uint32_t id) {
  return id != 0 && id < kTrackedIds && g_server[id].busy.load(std::memory_order_acquire);
}
inline void set_alive(uint32_t id, bool alive) {
  if (id != 0 && id < kTrackedIds) g_server[id].alive.store(alive, std::memory_order_relaxed);
}

inline uint32_t keeper(uint32_t id) {
  return id != 0 && id < kTrackedIds ? g_server[id].keeper.load(std::memory_order_acquire) : 0;
}
// Whether a thread kept for `kept` (0: free) may serve a gang of `family`.
inline bool serves_family(uint32_t kept, uint32_t family) { return kept == 0 || kept == family; }
// Server `id` (the calling thread's) is kept for `family` from now on, unless it is kept already.
inline void keep(uint32_t id, uint32_t family) {
  if (id == 0 || id >= kTrackedIds) return;
  // A thread kept already (in every gang of its keeper after the first) writes nothing: a locked
  // exchange would take the line from the keeper, which reads it at each gang's start.
  if (g_server[id].keeper.load(std::memory_order_relaxed) != 0) return;
  uint32_t free = 0;
  g_server[id].keeper.compare_exchange_strong(free, family, std::memory_order_acq_rel);
}
// Gives server `id` (docked: kDocked) the seat `assignment` (not kDocked, not 0); false when it is
// not docked (it is about to look for work itself, or busy, or asleep).
inline bool assign(uint32_t id, uint64_t assignment) {
  uint64_t docked = kDocked;
  return id != 0 && id < kTrackedIds &&
         g_server[id].dock.load(std::memory_order_relaxed) == kDocked &&
         g_server[id].dock.compare_exchange_strong(docked, assignment, std::memory_order_acq_rel);
}
// Every server kept for `family` (0: for any family) is free again.
void release_kept(uint32_t family);

// Pool workers and gang threads alive, not busy (in no seat, no pool call) and free or kept for
// `family`, and pool workers started and not yet looking: the threads that will look for a seat
// of that family's gang soon. Busy threads are counted rather than idle ones, so a thread
// descheduled between two looks still counts.
size_t idle(uint32_t family);

// Pauses so far (pause(): the threads that served a seat end).
inline uint32_t pauses() { return g_pause.load(std::memory_order_relaxed); }
// The calling thread serves a seat now: it counts as a server of the current pause count.
inline void note_served() {
  const uint32_t pause = g_pause.load(std::memory_order_relaxed);
  if (t_served == 0) g_served_threads.fetch_add(1, std::memory_order_relaxed);
  t_served = pause + 1;
}
// True when a pause came after the calling thread served a seat: it must end (it stops counting
// as a server).
inline bool retire_if_paused() {
  if (t_served == 0 || t_served == g_pause.load(std::memory_order_acquire) + 1) return false;
  t_served = 0;
  g_served_threads.fetch_sub(1, std::memory_order_seq_cst);
  return true;
}
// A pause: bumps the count; returns it.
inline uint32_t begin_pause() { return g_pause.fetch_add(1, std::memory_order_seq_cst) + 1; }
// Threads alive that served a seat since the last pause they saw.
inline uint32_t served_threads() { return g_served_threads.load(std::memory_order_seq_cst); }

// fork(): the child has none of the parent's servers.
POOLSHIM_FORK_HOOK void atfork_child();

#pragma GCC visibility pop
}  // namespace poolshim::core::servers
