// The scheduler counters (counters.h). Relaxed atomics, one cache line each: they add traffic of
// their own, which is why they exist only in the counting build, never in Release.
#include "core/counters.h"

#include <atomic>

#include "core/tls.h"

namespace poolshim::core::counters {

#if POOLSHIM_COUNTERS
namespace {
struct alignas(64) Cell {
  std::atomic<uint64_t> v{0};
};
Cell g_cells[kCount];
std::atomic<uint32_t> g_next_thread{0};
POOLSHIM_FAST_TLS thread_local bool t_worker = false;
POOLSHIM_FAST_TLS thread_local uint32_t t_id = 0;
}  // namespace

void add(Counter c, uint64_t n) { g_cells[c].v.fetch_add(n, std::memory_order_relaxed); }

void raise_to(Counter c, uint64_t v) {
  uint64_t cur = g_cells[c].v.load(std::memory_order_relaxed);
  while (cur < v && !g_cells[c].v.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

void rmw(Counter caller_kind) {
  // kWorkerShared follows kCallerShared, kWorkerLane follows kCallerLane.
  add(static_cast<Counter>(caller_kind + (t_worker ? 1 : 0)), 1);
}

void set_worker_thread() { t_worker = true; }

uint32_t thread_id() {
  if (t_id == 0) t_id = g_next_thread.fetch_add(1, std::memory_order_relaxed) + 1;
  return t_id;
}

void snapshot(poolshim_sched_counters* out, bool reset) {
  uint64_t* o = reinterpret_cast<uint64_t*>(out);
  for (int i = 0; i < kCount; ++i) {
    uint64_t v = reset ? g_cells[i].v.exchange(0, std::memory_order_relaxed)
                       : g_cells[i].v.load(std::memory_order_relaxed);
    if (o != nullptr) o[i] = v;
  }
}
static_assert(sizeof(poolshim_sched_counters) == kCount * sizeof(uint64_t),
              "one field per counter");
#endif

}  // namespace poolshim::core::counters
