// Busy-thread accounting (core/busy.h): a process-local atomic counter, or the group ledger when
// POOLSHIM_GROUP is set and usable (budget/group.h). The mode is decided on the first call, that
// is the first parallel call (nothing is mapped before), and read with one relaxed load after.
#include "core/busy.h"

#include <pthread.h>

#include <atomic>

#include "base/fork_hooks.h"
#include "base/assert.h"
#include "base/first_use.h"
#include "budget/budget.h"
#include "budget/group.h"
#include "core/cache_line.h"
#include "core/counters.h"

namespace poolshim::core::busy {
namespace {

enum Mode : int { kUndecided = 0, kLocal = 1, kGroup = 2 };

std::atomic<int> g_mode{kUndecided};
OnLine<long> g_local{0};         // threads busy in this process (local mode): its own line
std::atomic<size_t> g_limit{0};  // set_limit(); 0 = not set yet: the computed budget
pthread_once_t g_once = PTHREAD_ONCE_INIT;

// The once routine (pthread_once, not a function-local static: see base/first_use.h). The
// limit is the computed budget unless set_limit() (the pool, the cap) already set one.
void decide() {
  base::first_use("busy");
  size_t unset = 0;
  g_limit.compare_exchange_strong(unset, budget::current().threads, std::memory_order_relaxed);
  g_mode.store(budget::group::join_configured() ? kGroup : kLocal, std::memory_order_release);
}

inline int mode() {
  int m = g_mode.load(std::memory_order_acquire);
  if (__builtin_expect(m != kUndecided, 1)) return m;
  pthread_once(&g_once, decide);
  return g_mode.load(std::memory_order_acquire);
}

inline long limit() { return static_cast<long>(g_limit.load(std::memory_order_relaxed)); }

}  // namespace

void caller_enter() {
  POOLSHIM_COUNT_SHARED();
  if (mode() == kGroup) return budget::group::caller_enter(budget::group::self());
  g_local.fetch_add(1, std::memory_order_relaxed);
}

void caller_leave() {
  POOLSHIM_COUNT_SHARED();
  if (mode() == kGroup) return budget::group::caller_leave(budget::group::self());
  const long before = g_local.fetch_sub(1, std::memory_order_relaxed);
  POOLSHIM_ASSERT(before > 0);  // every share given back was taken
  (void)before;
}

void prefetch_count() { __builtin_prefetch(&g_local, 1); }

bool worker_try_enter() {
  if (mode() == kGroup) return budget::group::worker_try_enter(budget::group::self(), limit());
  long cur = g_local.load(std::memory_order_relaxed);
  while (cur < limit()) {
    POOLSHIM_COUNT_SHARED();
    if (g_local.compare_exchange_weak(cur, cur + 1, std::memory_order_relaxed)) return true;
  }
  return false;
}

void worker_leave() {
  POOLSHIM_COUNT_SHARED();
  if (mode() == kGroup) return budget::group::worker_leave(budget::group::self());
  const long before = g_local.fetch_sub(1, std::memory_order_relaxed);
  POOLSHIM_ASSERT(before > 0);  // every share given back was taken
  (void)before;
}

bool has_room() {
  // busy < limit, read through over_budget(): when the group is full it first reclaims the
  // shares of dead members (rate-limited), so a worker that sleeps on "no room" is not kept
  // asleep by a member that was killed.
  if (mode() == kGroup) return !budget::group::over_budget(budget::group::self(), limit() - 1);
  return g_local.load(std::memory_order_relaxed) < limit();
}

long room() {
  if (mode() == kGroup) return has_room() ? 1 : 0;
  long r = limit() - g_local.load(std::memory_order_relaxed);
  return r > 0 ? r : 0;
}

bool over_budget() {
  if (mode() == kGroup) return budget::group::over_budget(budget::group::self(), limit());
  return g_local.load(std::memory_order_relaxed) > limit();
}

void set_limit(size_t threads) {
  g_limit.store(threads == 0 ? 1 : threads, std::memory_order_relaxed);
}

}  // namespace poolshim::core::busy

namespace poolshim::core::busy {

// fork() (called from the pool's child hook, core/fork.cpp's table): the child has one thread;
// the ledger needs a slot of its own (the parent's share stays the parent's). The count restarts
// at `own`: 1 when the forking thread holds a share (a caller inside a call or a worker inside a
// task: its caller_leave() or worker_leave() follows in the child).
void reset_after_fork(long own) {
  base::reset_if_set(g_local, own);
  if (g_mode.load(std::memory_order_relaxed) == kGroup) {
    budget::group::atfork_child();
    if (!budget::group::in_group()) {
      g_mode.store(kLocal, std::memory_order_relaxed);
    } else if (own > 0) {
      budget::group::caller_enter(budget::group::self());
    }
  }
}

}  // namespace poolshim::core::busy
