// The pool's worker threads: created lazily (never at load time), up to the budget minus one,
// never joined or destroyed while the process runs. Between calls a worker spins briefly on the
// wake epoch, then sleeps on it (futex); a caller that publishes a call bumps the epoch and wakes
// as many sleepers as its call can use.
#pragma once
#include <cstddef>

namespace poolshim::core::workers {

// Makes sure at least n workers exist (n <= budget - 1). Never waits for another thread: if a
// spawn is already under way elsewhere, returns what exists. Returns the number of workers.
size_t ensure(size_t n);

// Workers that exist now.
size_t count();

// A call was published (or busy threads dropped while calls are in flight): wake up to n
// sleeping workers.
void wake(size_t n);

// Why workers could not be started, or nullptr.
const char* failure();

// The most workers a call asked ensure() for (0 before the first): fewer than that exist after
// a partial spawn failure (degraded: count() of wanted()), retried with backoff.
size_t wanted();

// fork() hooks (the child has none of the parent's workers).
void atfork_prepare();
void atfork_parent();
void atfork_child();

// How long an idle worker spins before sleeping, in nanoseconds (see docs/bench.md).
constexpr long kSpinNs = 50 * 1000;

}  // namespace poolshim::core::workers
