// Which rows of symbols/openmp.def the native runtime implements (the default mode), and with
// which of its functions (runtime/entry_points.h, whose prototypes the definitions are compiled
// against). Every other row forwards to libgomp in both modes: the omp_* functions that do not
// depend on the team (locks, clocks, devices, allocators, ...) are right there; the
// team-dependent rows listed as "not native" in docs/openmp.md are not, inside a native region.
//
// One row per name (and version, where only one version of a name is native: the OMP_3.0 nest
// locks, owned by tasks; the OMP_1.0 ones are owned by threads and forward), in
// symbols/openmp.def's order. An AS row shares another function: the nonmonotonic spellings run
// their schedule's code, and every *_next of a loop whose construct holds its schedule (the
// runtime schedules, the ull loops) is one function.
#include <string.h>

#include "abi/openmp/entry.h"
#include "abi/openmp/runtime/entry_points.h"

namespace poolshim::abi::openmp {
namespace {

struct Row {
  const char* name;
  void* fn;
  const char* version = nullptr;  // only this version of the name (nullptr: every version)
};

// clang-format off
#define R(name) {#name, reinterpret_cast<void*>(&psn_##name)}
#define AS(name, fn) {#name, reinterpret_cast<void*>(&psn_##fn)}
#define RV(name, version) {#name, reinterpret_cast<void*>(&psn_##name), version}
// clang-format on
const Row kNative[] = {
    // OMP_1.0
    R(omp_get_dynamic),
    R(omp_get_dynamic_),
    R(omp_get_max_threads),
    R(omp_get_max_threads_),
    R(omp_get_nested),
    R(omp_get_nested_),
    R(omp_get_num_threads),
    R(omp_get_num_threads_),
    R(omp_get_thread_num),
    R(omp_get_thread_num_),
    R(omp_in_parallel),
    R(omp_in_parallel_),
    R(omp_set_dynamic),
    R(omp_set_dynamic_),
    R(omp_set_dynamic_8_),
    R(omp_set_nested),
    R(omp_set_nested_),
    R(omp_set_nested_8_),
    R(omp_set_num_threads),
    R(omp_set_num_threads_),
    R(omp_set_num_threads_8_),
    // OMP_3.0
    RV(omp_destroy_nest_lock, "OMP_3.0"),
    RV(omp_destroy_nest_lock_, "OMP_3.0"),
    R(omp_get_active_level),
    R(omp_get_active_level_),
    R(omp_get_ancestor_thread_num),
    R(omp_get_ancestor_thread_num_),
    R(omp_get_ancestor_thread_num_8_),
    R(omp_get_level),
    R(omp_get_level_),
    R(omp_get_max_active_levels),
    R(omp_get_max_active_levels_),
    R(omp_get_schedule),
    R(omp_get_schedule_),
    R(omp_get_schedule_8_),
    R(omp_get_team_size),
    R(omp_get_team_size_),
    R(omp_get_team_size_8_),
    R(omp_get_thread_limit),
    R(omp_get_thread_limit_),
    RV(omp_init_nest_lock, "OMP_3.0"),
    RV(omp_init_nest_lock_, "OMP_3.0"),
    R(omp_set_max_active_levels),
    R(omp_set_max_active_levels_),
    R(omp_set_max_active_levels_8_),
    RV(omp_set_nest_lock, "OMP_3.0"),
    RV(omp_set_nest_lock_, "OMP_3.0"),
    R(omp_set_schedule),
    R(omp_set_schedule_),
    R(omp_set_schedule_8_),
    RV(omp_test_nest_lock, "OMP_3.0"),
    RV(omp_test_nest_lock_, "OMP_3.0"),
    RV(omp_unset_nest_lock, "OMP_3.0"),
    RV(omp_unset_nest_lock_, "OMP_3.0"),
    // OMP_3.1
    R(omp_in_final),
    R(omp_in_final_),
    // OMP_4.0
    R(omp_get_cancellation),
    R(omp_get_cancellation_),
    R(omp_get_default_device),
    R(omp_get_default_device_),
    R(omp_get_num_teams),
    R(omp_get_num_teams_),
    R(omp_get_team_num),
    R(omp_get_team_num_),
    R(omp_set_default_device),
    R(omp_set_default_device_),
    R(omp_set_default_device_8_),
    // OMP_5.0
    R(omp_pause_resource),
    R(omp_pause_resource_),
    R(omp_pause_resource_all),
    R(omp_pause_resource_all_),
    // OMP_5.0.1
    R(omp_alloc),
    R(omp_fulfill_event),
    R(omp_fulfill_event_),
    R(omp_get_default_allocator),
    R(omp_get_default_allocator_),
    R(omp_get_supported_active_levels),
    R(omp_get_supported_active_levels_),
    R(omp_set_default_allocator),
    R(omp_set_default_allocator_),
    // OMP_5.0.2
    R(omp_aligned_alloc),
    R(omp_aligned_calloc),
    R(omp_calloc),
    R(omp_realloc),
    // OMP_5.1
    R(omp_get_max_teams),
    R(omp_get_max_teams_),
    R(omp_get_teams_thread_limit),
    R(omp_get_teams_thread_limit_),
    R(omp_set_num_teams),
    R(omp_set_num_teams_),
    R(omp_set_num_teams_8_),
    R(omp_set_teams_thread_limit),
    R(omp_set_teams_thread_limit_),
    R(omp_set_teams_thread_limit_8_),
    // GOMP_1.0
    R(GOMP_atomic_end),
    R(GOMP_atomic_start),
    R(GOMP_barrier),
    R(GOMP_critical_end),
    R(GOMP_critical_name_end),
    R(GOMP_critical_name_start),
    R(GOMP_critical_start),
    R(GOMP_loop_dynamic_next),
    R(GOMP_loop_dynamic_start),
    R(GOMP_loop_end),
    R(GOMP_loop_end_nowait),
    R(GOMP_loop_guided_next),
    R(GOMP_loop_guided_start),
    R(GOMP_loop_ordered_dynamic_next),
    R(GOMP_loop_ordered_dynamic_start),
    R(GOMP_loop_ordered_guided_next),
    R(GOMP_loop_ordered_guided_start),
    AS(GOMP_loop_ordered_runtime_next, GOMP_loop_next),
    R(GOMP_loop_ordered_runtime_start),
    R(GOMP_loop_ordered_static_next),
    R(GOMP_loop_ordered_static_start),
    AS(GOMP_loop_runtime_next, GOMP_loop_next),
    R(GOMP_loop_runtime_start),
    R(GOMP_loop_static_next),
    R(GOMP_loop_static_start),
    R(GOMP_ordered_end),
    R(GOMP_ordered_start),
    R(GOMP_parallel_end),
    R(GOMP_parallel_loop_dynamic_start),
    R(GOMP_parallel_loop_guided_start),
    R(GOMP_parallel_loop_runtime_start),
    R(GOMP_parallel_loop_static_start),
    R(GOMP_parallel_sections_start),
    R(GOMP_parallel_start),
    R(GOMP_sections_end),
    R(GOMP_sections_end_nowait),
    R(GOMP_sections_next),
    R(GOMP_sections_start),
    R(GOMP_single_copy_end),
    R(GOMP_single_copy_start),
    R(GOMP_single_start),
    // GOMP_2.0
    AS(GOMP_loop_ull_dynamic_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_dynamic_start),
    AS(GOMP_loop_ull_guided_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_guided_start),
    AS(GOMP_loop_ull_ordered_dynamic_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_ordered_dynamic_start),
    AS(GOMP_loop_ull_ordered_guided_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_ordered_guided_start),
    AS(GOMP_loop_ull_ordered_runtime_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_ordered_runtime_start),
    AS(GOMP_loop_ull_ordered_static_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_ordered_static_start),
    AS(GOMP_loop_ull_runtime_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_runtime_start),
    AS(GOMP_loop_ull_static_next, GOMP_loop_ull_next),
    R(GOMP_loop_ull_static_start),
    R(GOMP_task),
    R(GOMP_taskwait),
    // GOMP_3.0
    R(GOMP_taskyield),
    // GOMP_4.0
    R(GOMP_barrier_cancel),
    R(GOMP_cancel),
    R(GOMP_cancellation_point),
    R(GOMP_loop_end_cancel),
    R(GOMP_parallel),
    R(GOMP_parallel_loop_dynamic),
    R(GOMP_parallel_loop_guided),
    R(GOMP_parallel_loop_runtime),
    R(GOMP_parallel_loop_static),
    R(GOMP_parallel_sections),
    R(GOMP_sections_end_cancel),
    R(GOMP_target),
    R(GOMP_target_data),
    R(GOMP_target_end_data),
    R(GOMP_target_update),
    R(GOMP_taskgroup_end),
    R(GOMP_taskgroup_start),
    R(GOMP_teams),
    // GOMP_4.5
    R(GOMP_doacross_post),
    R(GOMP_doacross_ull_post),
    R(GOMP_doacross_ull_wait),
    R(GOMP_doacross_wait),
    R(GOMP_loop_doacross_dynamic_start),
    R(GOMP_loop_doacross_guided_start),
    R(GOMP_loop_doacross_runtime_start),
    R(GOMP_loop_doacross_static_start),
    AS(GOMP_loop_nonmonotonic_dynamic_next, GOMP_loop_next),
    R(GOMP_loop_nonmonotonic_dynamic_start),
    AS(GOMP_loop_nonmonotonic_guided_next, GOMP_loop_next),
    R(GOMP_loop_nonmonotonic_guided_start),
    R(GOMP_loop_ull_doacross_dynamic_start),
    R(GOMP_loop_ull_doacross_guided_start),
    R(GOMP_loop_ull_doacross_runtime_start),
    R(GOMP_loop_ull_doacross_static_start),
    AS(GOMP_loop_ull_nonmonotonic_dynamic_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_nonmonotonic_dynamic_start, GOMP_loop_ull_dynamic_start),
    AS(GOMP_loop_ull_nonmonotonic_guided_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_nonmonotonic_guided_start, GOMP_loop_ull_guided_start),
    R(GOMP_parallel_loop_nonmonotonic_dynamic),
    R(GOMP_parallel_loop_nonmonotonic_guided),
    R(GOMP_target_data_ext),
    R(GOMP_target_enter_exit_data),
    R(GOMP_target_ext),
    R(GOMP_target_update_ext),
    R(GOMP_taskloop),
    R(GOMP_taskloop_ull),
    // GOMP_5.0
    R(GOMP_loop_doacross_start),
    AS(GOMP_loop_maybe_nonmonotonic_runtime_next, GOMP_loop_next),
    AS(GOMP_loop_maybe_nonmonotonic_runtime_start, GOMP_loop_runtime_start),
    AS(GOMP_loop_nonmonotonic_runtime_next, GOMP_loop_next),
    AS(GOMP_loop_nonmonotonic_runtime_start, GOMP_loop_runtime_start),
    R(GOMP_loop_ordered_start),
    R(GOMP_loop_start),
    R(GOMP_loop_ull_doacross_start),
    AS(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, GOMP_loop_ull_runtime_start),
    AS(GOMP_loop_ull_nonmonotonic_runtime_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_nonmonotonic_runtime_start, GOMP_loop_ull_runtime_start),
    R(GOMP_loop_ull_ordered_start),
    R(GOMP_loop_ull_start),
    AS(GOMP_parallel_loop_maybe_nonmonotonic_runtime, GOMP_parallel_loop_runtime),
    AS(GOMP_parallel_loop_nonmonotonic_runtime, GOMP_parallel_loop_runtime),
    R(GOMP_parallel_reductions),
    R(GOMP_sections2_start),
    R(GOMP_task_reduction_remap),
    R(GOMP_taskgroup_reduction_register),
    R(GOMP_taskgroup_reduction_unregister),
    R(GOMP_taskwait_depend),
    R(GOMP_teams_reg),
    R(GOMP_workshare_task_reduction_unregister),
    // GOMP_5.0.1
    R(GOMP_alloc),
    // GOMP_5.1
    R(GOMP_scope_start),
    R(GOMP_teams4),
};
#undef R
#undef RV
#undef AS

}  // namespace

void* runtime_function(const char* name, const char* version) {
  for (const Row& r : kNative)
    if (strcmp(r.name, name) == 0 &&
        (r.version == nullptr || (version != nullptr && strcmp(r.version, version) == 0)))
      return r.fn;
  return nullptr;
}

}  // namespace poolshim::abi::openmp
