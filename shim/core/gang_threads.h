// Gang threads: started for seats no pool worker took (all busy, or the budget is smaller than
// the team), as libgomp would start them, and kept for later gangs (counted: extra_threads()).
// They serve seats only; between gangs they wait as pool workers do (core/wait.h), on an epoch of
// their own.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/gang_seats.h"
#include "base/fork_hooks.h"

namespace poolshim::core::gang {
#pragma GCC visibility push(hidden)

// Gang threads sleep each on its own word (servers.h, Server::nap), so that a gang whose seats are
// each preferred for a thread wakes those threads only (wake_gang_thread), not every gang thread:
// with many callers each keeping a thread of its own, waking them all at every region was half
// the time (docs/openmp.md). A thread about to sleep looks again when a gang opened since its
// last look (gangs_opened(): a gang's open is a seq_cst read-modify-write before its start reads
// napping), or when the epoch moved (wake_gang_threads bumps it before it reads napping).
//
// Wakes every gang thread to look for seats.
void wake_gang_threads();
// Wakes server `id` if it is a gang thread asleep (a gang opened a seat preferred for it).
void wake_gang_thread(uint32_t id);

// Seats of slot s's gang of `members` nobody claimed after the wait: starts gang threads for them
// (idle ones are woken first), but no more than seats are left beyond the threads that will look
// for one soon: gang threads starting, and (discount_idle) idle pool workers and gang threads,
// less the members that already returned (idle again, perhaps, but a thread serves one seat of a
// gang). Threads are counted for the gang's family (gang_family.h); when it cannot start the
// threads it needs, the threads kept for other families may serve the gang too. Returns how many
// it started, and in *short_of whether it could not start all it needed (pthread_create failed)
// and no other thread is counted to come (so a gang shrinks to the threads alive, not to those
// that came first); the caller looks again after a while (those threads may have gone to other
// work meanwhile).
unsigned fill_with_gang_threads(Slot& s, unsigned members, bool discount_idle, bool* short_of);

// Gang threads started since start (or the last fork).
size_t started_threads();
// Gang threads started and not yet looking for a seat.
size_t starting_threads();
// Gang threads started (or starting) and not ended (a pause ends them).
size_t live_threads();

// fork(): the child has none of the parent's gang threads.
POOLSHIM_FORK_HOOK void threads_atfork_prepare();  // from gang::atfork_prepare
POOLSHIM_FORK_HOOK void threads_atfork_child();

#pragma GCC visibility pop
}  // namespace poolshim::core::gang
