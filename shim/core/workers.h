// The pool's worker threads: created lazily (never at load time), up to the budget minus one,
// never joined or destroyed while the process runs. Between calls a worker spins briefly on the
// wake epoch, then sleeps on it (futex); a caller that publishes a call bumps the epoch and wakes
// as many sleepers as its call can use.
#pragma once
#include <atomic>
#include <cstddef>
#include "base/fork_hooks.h"

namespace poolshim::core::workers {

// Workers alive (workers.cpp says who writes it). Declared here for the two inline reads below,
// which every call makes.
__attribute__((visibility("hidden"))) extern std::atomic<size_t> g_count;

// Workers that exist now.
inline size_t count() { return g_count.load(std::memory_order_acquire); }

// Makes sure at least n workers exist (n <= budget - 1). Never waits for another thread: if a
// spawn is already under way elsewhere, returns what exists. Returns the number of workers. The
// check is inline; spawn() is the rest (it checks again).
size_t spawn(size_t n);
inline size_t ensure(size_t n) {
  const size_t have = count();
  return have >= n ? have : spawn(n);
}

// Workers started and not yet in their loop (a new thread's first run can take a while under
// load): a gang waits for them before it starts threads beyond the budget (gang.cpp).
size_t starting();

// A call was published (or busy threads dropped while calls are in flight): wake up to n
// sleeping workers.
void wake(size_t n);

// The wake cascade (docs/scheduler.md, "Wake-ups"): wakes at most one sleeping worker, and only
// while fewer wake-ups are in flight than `room` (the threads the budget can still take): a
// wake-up is in flight from the futex wake until the woken worker has tried to join
// (settle_wake()). publish: a call was published, bump the epoch first (spinning workers see it).
// A caller that publishes wakes one; each worker that joins wakes the next while its call has a
// free lane and the budget room; so no more threads wake than can join. True: it woke one.
bool wake_one(long room, bool publish);
// A worker woken by wake_one() has tried to join a call (joined or not): its wake-up is settled.
void settle_wake();
// Some worker sleeps, or is about to (seq_cst): a gang's start wakes them (gang_seats.h,
// gangs_opened()).
bool any_asleep();
// Some worker is not asleep (seq_cst): it looks at the patient calls (publish.h, "Patience")
// before it sleeps.
bool awake();

// Why workers could not be started, or nullptr.
const char* failure();

// The most workers a call asked ensure() for (0 before the first): fewer than that exist after
// a partial spawn failure (degraded: count() of wanted()), retried with backoff.
size_t wanted();

// fork() hooks (the child has none of the parent's workers).
POOLSHIM_FORK_HOOK void atfork_prepare();
POOLSHIM_FORK_HOOK void atfork_parent();
POOLSHIM_FORK_HOOK void atfork_child();

}  // namespace poolshim::core::workers
