// The registry of serving threads (servers.h): its storage, idle(), release_kept(), the fork reset.
#include "core/servers.h"

#include "core/workers.h"

namespace poolshim::core::servers {

Server g_server[kTrackedIds];
std::atomic<uint32_t> g_next_id{1};
__thread uint32_t t_id POOLSHIM_FAST_TLS = 0;
std::atomic<uint32_t> g_pause{0};
std::atomic<uint32_t> g_served_threads{0};
__thread uint32_t t_served POOLSHIM_FAST_TLS = 0;

size_t idle(uint32_t family) {
  uint32_t ids = g_next_id.load(std::memory_order_relaxed);
  size_t n = workers::starting();
  for (uint32_t id = 1; id < ids && id < kTrackedIds; ++id) {
    const uint32_t kept = g_server[id].keeper.load(std::memory_order_relaxed);
    n += g_server[id].alive.load(std::memory_order_relaxed) &&
         !g_server[id].busy.load(std::memory_order_relaxed) && serves_family(kept, family);
  }
  return n;
}

void release_kept(uint32_t family) {
  uint32_t ids = g_next_id.load(std::memory_order_relaxed);
  for (uint32_t id = 1; id < ids && id < kTrackedIds; ++id) {
    uint32_t kept = g_server[id].keeper.load(std::memory_order_relaxed);
    if (kept != 0 && (family == 0 || kept == family))
      g_server[id].keeper.compare_exchange_strong(kept, 0, std::memory_order_acq_rel);
  }
}

void atfork_child() {
  g_served_threads.store(0, std::memory_order_relaxed);
  t_served = 0;  // the forking thread's record: it is the child's only thread
  for (Server& v : g_server) {
    v.busy.store(false, std::memory_order_relaxed);
    v.alive.store(false, std::memory_order_relaxed);
    v.keeper.store(0, std::memory_order_relaxed);
    v.dock.store(0, std::memory_order_relaxed);
  }
}

}  // namespace poolshim::core::servers
