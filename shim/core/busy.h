// Busy-thread accounting: how many threads are running pool work right now, against the budget.
// Callers of top-level parallel calls always count and never wait; a worker joins a call only
// when a slot is free, and leaves its call between runs of items when more threads are busy than
// the budget allows (a caller arrived). With POOLSHIM_GROUP the count is shared by every process
// of the group (budget/group_ledger.*); otherwise it is a process-local atomic.
#pragma once
#include <cstddef>
#include "base/fork_hooks.h"

namespace poolshim::core::busy {

// A top-level caller starts / stops running its own call. Never fails, never waits.
void caller_enter();
void caller_leave();

// A worker about to join: starts fetching the busy count's line (worker_try_enter() follows).
void prefetch_count();

// A worker wants to run pool work: true (and counted) when fewer threads than the budget are
// busy. Lock-free.
bool worker_try_enter();
void worker_leave();

// True when a worker could join now (fewer threads busy than the budget). Lock-free.
bool has_room();
// How many more threads could join now (the budget minus the busy threads; in a group 1 or 0).
long room();

// True when more threads are busy than the budget allows; a worker checks this between runs of
// items and leaves its call when it is (its remaining items are taken by the others).
bool over_budget();

// The budget the count is held against (the cap or the computed budget); set by the pool.
void set_limit(size_t threads);

}  // namespace poolshim::core::busy

namespace poolshim::core::busy {
// In a forked child: only the forking thread exists; `own` is 1 when it holds a busy share (a
// caller inside its call, or a worker inside a task), which it gives back when its task returns.
POOLSHIM_FORK_HOOK void reset_after_fork(long own);
}  // namespace poolshim::core::busy
