// The registry of serving threads (servers.h): its storage, idle(), release_kept(), the fork reset.
#include "core/servers.h"

#include "base/fork_hooks.h"
#include "base/resident_pages.h"
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
  base::reset_if_set(g_served_threads, 0);
  base::reset_if_set(t_served, 0);  // the forking thread's record: it is the child's only thread
  // Past the ids given, only the entries on pages the child has (base/resident_pages.h): another
  // thread of the parent may have taken an id and written its entry while the fork copied the
  // pages, after g_next_id's.
  const uint32_t ids = g_next_id.load(std::memory_order_relaxed);
  const base::ResidentPages pages(g_server, sizeof g_server);
  for (uint32_t id = 0; id < kTrackedIds; ++id) {
    Server& v = g_server[id];
    if (id >= ids && !pages.may_hold(&v)) continue;
    base::reset_if_set(v.busy, false);
    base::reset_if_set(v.alive, false);
    base::reset_if_set(v.keeper, 0u);
    base::reset_if_set(v.dock, uint64_t{0});
  }
}

}  // namespace poolshim::core::servers
