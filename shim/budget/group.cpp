// The process's group membership: POOLSHIM_GROUP -> the ledger path -> join, once. See group.h.
#include "budget/group.h"

#include <pthread.h>

#include <atomic>

#include "budget/budget.h"
#include "config/options.h"
#include "diag/log.h"

namespace poolshim::budget::group {
namespace {

pthread_once_t g_once = PTHREAD_ONCE_INIT;
Member g_self;
std::atomic<bool> g_joined{false};
std::atomic<bool> g_failed{false};  // a group was configured but its ledger could not be used

void join_once() {
  const char* group = config::options().group;
  if (group == nullptr) return;
  char path[160];
  char why[320];
  size_t threads = current().threads;
  if (!ledger_path(group, path, sizeof path)) {
    diag::warn_once(diag::LogSite::group_path_too_long,
                    "POOLSHIM_GROUP=%s: the ledger path is too long; using this process's own "
                    "budget",
                    group);
    g_failed.store(true, std::memory_order_relaxed);
    return;
  }
  if (!join(path, threads, &g_self, why, sizeof why)) {
    diag::warn_once(diag::LogSite::group_join_failed,
                    "POOLSHIM_GROUP=%s: %s; using this process's own budget (%zu threads)", group,
                    why, threads);
    g_failed.store(true, std::memory_order_relaxed);
    return;
  }
  g_joined.store(true, std::memory_order_release);
  POOLSHIM_LOG(info, "group %s: joined %s (%s), %zu member%s, budget %zu threads across the group",
               group, path, g_self.created ? "created" : "existing", members(g_self),
               members(g_self) == 1 ? "" : "s", threads);
}

}  // namespace

bool join_configured() {
  pthread_once(&g_once, join_once);
  return g_joined.load(std::memory_order_acquire);
}

const Member& self() { return g_self; }

const char* name() {
  const char* g = config::options().group;
  return g != nullptr && !g_failed.load(std::memory_order_relaxed) ? g : "";
}

bool in_group() { return g_joined.load(std::memory_order_acquire); }

void atfork_child() {
  if (!g_joined.load(std::memory_order_relaxed)) return;
  if (!reregister_after_fork(&g_self)) {
    g_joined.store(false, std::memory_order_relaxed);  // the mapping stays (4 KiB), unused
    g_failed.store(true, std::memory_order_relaxed);
    diag::warn_once(diag::LogSite::group_no_slot_after_fork,
                    "POOLSHIM_GROUP=%s: no free slot for this forked child; using its own budget",
                    name());
  }
}

}  // namespace poolshim::budget::group
