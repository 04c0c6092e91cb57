// The native C API (include/poolshim/poolshim.h) over core/ and budget/.
#include "poolshim/poolshim.h"

#include <stddef.h>

#include "budget/budget.h"
#include "budget/group.h"
#include "core/counters.h"
#include "core/size.h"
#include "core/pool.h"
#include "core/gang.h"
#include "config/options.h"

namespace {

struct Task {
  poolshim_task_fn fn;
  void* context;
};

void call_task(void* ctx, size_t thread_index, size_t index) {
  auto* t = static_cast<Task*>(ctx);
  t->fn(t->context, thread_index, index);
}

// The version-0 layout ends after pool_size; fields after it are filled only if the caller's
// struct is large enough to hold them.
constexpr size_t kMinInfoSize = offsetof(poolshim_info, pool_size) + sizeof(size_t);

template <typename T>
void set_if_fits(poolshim_info* info, T poolshim_info::*field, T value) {
  size_t end =
      reinterpret_cast<size_t>(&(static_cast<poolshim_info*>(nullptr)->*field)) + sizeof(T);
  if (info->struct_size >= end) info->*field = value;
}

}  // namespace

extern "C" {

POOLSHIM_API size_t poolshim_request_threads(const char* component, size_t threads) {
  return poolshim::core::request_threads(component, threads);
}

POOLSHIM_API void poolshim_release_threads(const char* component) {
  poolshim::core::release_threads(component);
}

POOLSHIM_API void poolshim_parallelize_1d(poolshim_task_fn task, void* context, size_t range,
                                          size_t max_threads) {
  if (task == nullptr || range == 0) return;
  Task t{task, context};
  poolshim::core::run(range, call_task, &t, max_threads, 0, poolshim::core::work_of(task, context));
}

POOLSHIM_API size_t poolshim_get_width(size_t max_threads) {
  return poolshim::core::width(max_threads);
}

POOLSHIM_API size_t poolshim_get_pool_size(void) { return poolshim::core::pool_size(); }

POOLSHIM_API size_t poolshim_get_budget(void) { return poolshim::core::budget(); }

POOLSHIM_API size_t poolshim_set_budget(size_t threads) { return poolshim::core::set_cap(threads); }

POOLSHIM_API const char* poolshim_get_budget_source(void) {
  return poolshim::budget::current().source;
}

POOLSHIM_API int poolshim_get_info(struct poolshim_info* info) {
  if (info == nullptr || info->struct_size < kMinInfoSize) return -1;
  const poolshim::budget::Budget& b = poolshim::budget::current();
  const poolshim::config::Options& o = poolshim::config::options();
  info->version = POOLSHIM_VERSION;
  info->budget = poolshim::core::budget();
  info->budget_source = b.source;
  info->pool_size = poolshim::core::pool_size();
  set_if_fits(info, &poolshim_info::pool_started, poolshim::core::started() ? 1 : 0);
  set_if_fits(info, &poolshim_info::live_requests, poolshim::core::live_requests());
  set_if_fits(info, &poolshim_info::disabled_surfaces, static_cast<uint32_t>(o.disabled));
  set_if_fits(info, &poolshim_info::log_level, static_cast<int>(o.log_level));
  set_if_fits(info, &poolshim_info::computed_budget, b.threads);
  set_if_fits(info, &poolshim_info::budget_cap, poolshim::core::cap());
  const char* degraded = poolshim::core::degraded_reason();
  set_if_fits(info, &poolshim_info::degraded, degraded != nullptr ? 1 : 0);
  set_if_fits(info, &poolshim_info::degraded_reason, degraded != nullptr ? degraded : "");
  // The group is joined on the first parallel call; before that (or when the ledger could not be
  // used) the name is reported with 0 members.
  namespace group = poolshim::budget::group;
  bool in = group::in_group();
  set_if_fits(info, &poolshim_info::group, group::name());
  set_if_fits(info, &poolshim_info::group_members, in ? group::members(group::self()) : size_t{0});
  size_t busy = 0;
  if (in) {
    long b = group::busy(group::self());
    busy = b > 0 ? static_cast<size_t>(b) : 0;
  }
  set_if_fits(info, &poolshim_info::group_busy, busy);
  set_if_fits(info, &poolshim_info::workers_started, poolshim::core::workers_started());
  set_if_fits(info, &poolshim_info::workers_wanted, poolshim::core::workers_wanted());
  set_if_fits(info, &poolshim_info::team_threads, poolshim::core::gang::extra_threads());
  return 0;
}

// The scheduler counters (core/counters.h): an internal entry point for the counting tests.
POOLSHIM_API int poolshim_debug_counters(struct poolshim_sched_counters* out, int reset) {
#if POOLSHIM_COUNTERS
  poolshim::core::counters::snapshot(out, reset != 0);
  return 0;
#else
  if (out != nullptr) *out = poolshim_sched_counters{};
  return -1;
#endif
}

}  // extern "C"
