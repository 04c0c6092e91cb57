// Process-local busy-thread accounting (busy.h). One counter shared by callers and workers.
#include "core/busy.h"

#include <atomic>

namespace poolshim::core::busy {
namespace {

// Threads running pool work now: top-level callers (always counted) plus workers that joined a
// call. Written by every caller and worker with relaxed RMWs: it is a throttle, not a lock, and
// nothing else is published through it.
std::atomic<long> g_busy{0};
// The budget it is held against. Written by set_limit() (the pool, on a budget or cap change).
std::atomic<long> g_limit{1};

}  // namespace

void caller_enter() { g_busy.fetch_add(1, std::memory_order_relaxed); }
void caller_leave() { g_busy.fetch_sub(1, std::memory_order_relaxed); }

bool worker_try_enter() {
  long b = g_busy.load(std::memory_order_relaxed);
  const long limit = g_limit.load(std::memory_order_relaxed);
  while (b < limit)
    if (g_busy.compare_exchange_weak(b, b + 1, std::memory_order_relaxed)) return true;
  return false;
}

void worker_leave() { g_busy.fetch_sub(1, std::memory_order_relaxed); }

bool has_room() {
  return g_busy.load(std::memory_order_relaxed) < g_limit.load(std::memory_order_relaxed);
}

bool over_budget() {
  return g_busy.load(std::memory_order_relaxed) > g_limit.load(std::memory_order_relaxed);
}

void set_limit(size_t threads) {
  g_limit.store(threads == 0 ? 1 : static_cast<long>(threads), std::memory_order_relaxed);
}

}  // namespace poolshim::core::busy

namespace poolshim::core::busy {
void reset_after_fork(long own) { g_busy.store(own, std::memory_order_relaxed); }
}  // namespace poolshim::core::busy
