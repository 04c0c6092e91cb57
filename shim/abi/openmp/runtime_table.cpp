// Which rows of symbols/openmp.def the native runtime implements (POOLSHIM_OPENMP=shim), and
// with which function. Every other row forwards to libgomp in both modes: the omp_* functions
// that do not depend on the team (locks, clocks, devices, allocators, ...) are right there; the
// team-dependent rows listed as "not native" in docs/openmp.md are not, inside a native region.
#include <string.h>

#include "abi/openmp/entry.h"

extern "C" {
void psn_GOMP_atomic_end();
void psn_GOMP_atomic_start();
void psn_GOMP_barrier();
void psn_GOMP_barrier_cancel();
void psn_GOMP_cancel();
void psn_GOMP_cancellation_point();
void psn_GOMP_critical_end();
void psn_GOMP_critical_name_end();
void psn_GOMP_critical_name_start();
void psn_GOMP_critical_start();
void psn_GOMP_loop_end();
void psn_GOMP_loop_end_cancel();
void psn_GOMP_loop_end_nowait();
void psn_GOMP_loop_next();
void psn_GOMP_loop_nonmonotonic_dynamic_start();
void psn_GOMP_loop_nonmonotonic_guided_start();
void psn_GOMP_loop_ordered_runtime_start();
void psn_GOMP_loop_runtime_start();
void psn_GOMP_ordered_end();
void psn_GOMP_ordered_start();
void psn_GOMP_parallel();
void psn_GOMP_parallel_end();
void psn_GOMP_parallel_loop_nonmonotonic_dynamic();
void psn_GOMP_parallel_loop_nonmonotonic_guided();
void psn_GOMP_parallel_loop_runtime();
void psn_GOMP_parallel_sections();
void psn_GOMP_parallel_start();
void psn_GOMP_sections_end();
void psn_GOMP_sections_end_cancel();
void psn_GOMP_sections_end_nowait();
void psn_GOMP_sections_next();
void psn_GOMP_sections_start();
void psn_GOMP_single_copy_end();
void psn_GOMP_single_copy_start();
void psn_GOMP_single_start();
void psn_GOMP_task();
void psn_GOMP_taskgroup_end();
void psn_GOMP_taskgroup_start();
void psn_GOMP_taskwait();
void psn_GOMP_taskwait_depend();
void psn_GOMP_taskyield();
void psn_omp_fulfill_event();
void psn_omp_get_active_level();
void psn_omp_get_ancestor_thread_num();
void psn_omp_get_dynamic();
void psn_omp_get_level();
void psn_omp_get_max_active_levels();
void psn_omp_get_max_threads();
void psn_omp_get_nested();
void psn_omp_get_num_threads();
void psn_omp_get_schedule();
void psn_omp_get_supported_active_levels();
void psn_omp_get_team_size();
void psn_omp_get_thread_limit();
void psn_omp_get_thread_num();
void psn_omp_in_parallel();
void psn_omp_set_dynamic();
void psn_omp_set_max_active_levels();
void psn_omp_set_nested();
void psn_omp_set_num_threads();
void psn_omp_set_schedule();
// omp-loops: runtime/loop_start.cpp and runtime/doacross.cpp.
void psn_GOMP_loop_start();
void psn_GOMP_loop_ordered_start();
void psn_GOMP_loop_ull_start();
void psn_GOMP_loop_ull_ordered_start();
void psn_GOMP_loop_ull_static_start();
void psn_GOMP_loop_ull_dynamic_start();
void psn_GOMP_loop_ull_guided_start();
void psn_GOMP_loop_ull_runtime_start();
void psn_GOMP_loop_ull_ordered_static_start();
void psn_GOMP_loop_ull_ordered_dynamic_start();
void psn_GOMP_loop_ull_ordered_guided_start();
void psn_GOMP_loop_ull_ordered_runtime_start();
void psn_GOMP_loop_ull_next();
void psn_GOMP_loop_doacross_static_start();
void psn_GOMP_loop_doacross_dynamic_start();
void psn_GOMP_loop_doacross_guided_start();
void psn_GOMP_loop_doacross_runtime_start();
void psn_GOMP_loop_doacross_start();
void psn_GOMP_loop_ull_doacross_static_start();
void psn_GOMP_loop_ull_doacross_dynamic_start();
void psn_GOMP_loop_ull_doacross_guided_start();
void psn_GOMP_loop_ull_doacross_runtime_start();
void psn_GOMP_loop_ull_doacross_start();
void psn_GOMP_doacross_post();
void psn_GOMP_doacross_wait();
void psn_GOMP_doacross_ull_post();
void psn_GOMP_doacross_ull_wait();
void psn_GOMP_sections2_start();
void psn_GOMP_scope_start();
void psn_GOMP_parallel_loop_static_start();
void psn_GOMP_parallel_loop_dynamic_start();
void psn_GOMP_parallel_loop_guided_start();
void psn_GOMP_parallel_loop_runtime_start();
void psn_GOMP_parallel_sections_start();
// omp-cancel: cancellation, nest locks, omp_pause_resource.
void psn_omp_get_cancellation();
void psn_omp_init_nest_lock();
void psn_omp_destroy_nest_lock();
void psn_omp_set_nest_lock();
void psn_omp_unset_nest_lock();
void psn_omp_test_nest_lock();
void psn_omp_init_nest_lock_();
void psn_omp_destroy_nest_lock_();
void psn_omp_set_nest_lock_();
void psn_omp_unset_nest_lock_();
void psn_omp_test_nest_lock_();
void psn_omp_pause_resource();
void psn_omp_pause_resource_all();
// The macro-made loop functions (runtime/loop_api.cpp).
#define PSN_DECL(kind)                         \
  void psn_GOMP_loop_##kind##_start();         \
  void psn_GOMP_loop_##kind##_next();          \
  void psn_GOMP_loop_ordered_##kind##_start(); \
  void psn_GOMP_loop_ordered_##kind##_next();  \
  void psn_GOMP_parallel_loop_##kind();
PSN_DECL(static)
PSN_DECL(dynamic)
PSN_DECL(guided)
#undef PSN_DECL
// omp-tasks: task reductions, taskloop, omp_in_final.
void psn_GOMP_parallel_reductions();
void psn_GOMP_task_reduction_remap();
void psn_GOMP_taskgroup_reduction_register();
void psn_GOMP_taskgroup_reduction_unregister();
void psn_GOMP_workshare_task_reduction_unregister();
void psn_GOMP_taskloop();
void psn_GOMP_taskloop_ull();
void psn_omp_in_final();
// omp-target: teams (runtime/teams.cpp), target constructs (runtime/target.cpp), the Fortran
// spellings (runtime/fortran.cpp), def-allocator-var (runtime/alloc.cpp).
void psn_GOMP_teams();
void psn_GOMP_teams4();
void psn_GOMP_teams_reg();
void psn_omp_get_max_teams();
void psn_omp_get_num_teams();
void psn_omp_get_team_num();
void psn_omp_get_teams_thread_limit();
void psn_omp_set_num_teams();
void psn_omp_set_teams_thread_limit();
void psn_GOMP_target();
void psn_GOMP_target_data();
void psn_GOMP_target_data_ext();
void psn_GOMP_target_end_data();
void psn_GOMP_target_enter_exit_data();
void psn_GOMP_target_ext();
void psn_GOMP_target_update();
void psn_GOMP_target_update_ext();
void psn_omp_set_default_allocator();
void psn_omp_get_default_allocator();
void psn_omp_set_default_allocator_();
void psn_omp_get_default_allocator_();
void psn_omp_alloc();
void psn_omp_aligned_alloc();
void psn_omp_calloc();
void psn_omp_aligned_calloc();
void psn_omp_realloc();
void psn_GOMP_alloc();
void psn_omp_set_default_device();
void psn_omp_get_default_device();
#define PSN_FORTRAN(name) void psn_##name##_();
#define PSN_FORTRAN8(name) \
  void psn_##name##_();    \
  void psn_##name##_8_();
#include "abi/openmp/runtime/fortran.def"
#undef PSN_FORTRAN
#undef PSN_FORTRAN8
}

namespace poolshim::abi::openmp {
namespace {

struct Row {
  const char* name;
  void (*fn)();
  const char* version = nullptr;  // only this version of the name (nullptr: every version)
};

#define R(name) \
  { #name, psn_##name }
#define AS(name, fn) \
  { #name, psn_##fn }
#define RV(name, version) \
  { #name, psn_##name, version }
const Row kNative[] = {
    R(GOMP_parallel),
    R(GOMP_parallel_start),
    R(GOMP_parallel_end),
    R(GOMP_barrier),
    R(GOMP_barrier_cancel),
    R(GOMP_loop_static_start),
    R(GOMP_loop_dynamic_start),
    R(GOMP_loop_guided_start),
    R(GOMP_loop_runtime_start),
    R(GOMP_loop_nonmonotonic_dynamic_start),
    R(GOMP_loop_nonmonotonic_guided_start),
    AS(GOMP_loop_nonmonotonic_runtime_start, GOMP_loop_runtime_start),
    AS(GOMP_loop_maybe_nonmonotonic_runtime_start, GOMP_loop_runtime_start),
    R(GOMP_loop_static_next),
    R(GOMP_loop_dynamic_next),
    R(GOMP_loop_guided_next),
    AS(GOMP_loop_runtime_next, GOMP_loop_next),
    AS(GOMP_loop_nonmonotonic_dynamic_next, GOMP_loop_next),
    AS(GOMP_loop_nonmonotonic_guided_next, GOMP_loop_next),
    AS(GOMP_loop_nonmonotonic_runtime_next, GOMP_loop_next),
    AS(GOMP_loop_maybe_nonmonotonic_runtime_next, GOMP_loop_next),
    R(GOMP_loop_ordered_static_start),
    R(GOMP_loop_ordered_dynamic_start),
    R(GOMP_loop_ordered_guided_start),
    R(GOMP_loop_ordered_runtime_start),
    R(GOMP_loop_ordered_static_next),
    R(GOMP_loop_ordered_dynamic_next),
    R(GOMP_loop_ordered_guided_next),
    AS(GOMP_loop_ordered_runtime_next, GOMP_loop_next),
    R(GOMP_parallel_loop_static),
    R(GOMP_parallel_loop_dynamic),
    R(GOMP_parallel_loop_guided),
    R(GOMP_parallel_loop_runtime),
    R(GOMP_parallel_loop_nonmonotonic_dynamic),
    R(GOMP_parallel_loop_nonmonotonic_guided),
    AS(GOMP_parallel_loop_nonmonotonic_runtime, GOMP_parallel_loop_runtime),
    AS(GOMP_parallel_loop_maybe_nonmonotonic_runtime, GOMP_parallel_loop_runtime),
    R(GOMP_loop_end),
    R(GOMP_loop_end_nowait),
    R(GOMP_loop_end_cancel),
    R(GOMP_ordered_start),
    R(GOMP_ordered_end),
    R(GOMP_sections_start),
    R(GOMP_sections_next),
    R(GOMP_parallel_sections),
    R(GOMP_sections_end),
    R(GOMP_sections_end_nowait),
    R(GOMP_sections_end_cancel),
    // omp-loops: the GOMP 5.0 starts, the ull loops, doacross, sections2, scope, the old
    // combined starts (runtime/loop_start.cpp, runtime/doacross.cpp).
    R(GOMP_loop_start),
    R(GOMP_loop_ordered_start),
    R(GOMP_loop_ull_start),
    R(GOMP_loop_ull_ordered_start),
    R(GOMP_loop_ull_static_start),
    R(GOMP_loop_ull_dynamic_start),
    R(GOMP_loop_ull_guided_start),
    R(GOMP_loop_ull_runtime_start),
    R(GOMP_loop_ull_ordered_static_start),
    R(GOMP_loop_ull_ordered_dynamic_start),
    R(GOMP_loop_ull_ordered_guided_start),
    R(GOMP_loop_ull_ordered_runtime_start),
    AS(GOMP_loop_ull_nonmonotonic_dynamic_start, GOMP_loop_ull_dynamic_start),
    AS(GOMP_loop_ull_nonmonotonic_guided_start, GOMP_loop_ull_guided_start),
    AS(GOMP_loop_ull_nonmonotonic_runtime_start, GOMP_loop_ull_runtime_start),
    AS(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, GOMP_loop_ull_runtime_start),
    AS(GOMP_loop_ull_static_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_dynamic_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_guided_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_runtime_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_nonmonotonic_dynamic_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_nonmonotonic_guided_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_nonmonotonic_runtime_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_ordered_static_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_ordered_dynamic_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_ordered_guided_next, GOMP_loop_ull_next),
    AS(GOMP_loop_ull_ordered_runtime_next, GOMP_loop_ull_next),
    R(GOMP_loop_doacross_static_start),
    R(GOMP_loop_doacross_dynamic_start),
    R(GOMP_loop_doacross_guided_start),
    R(GOMP_loop_doacross_runtime_start),
    R(GOMP_loop_doacross_start),
    R(GOMP_loop_ull_doacross_static_start),
    R(GOMP_loop_ull_doacross_dynamic_start),
    R(GOMP_loop_ull_doacross_guided_start),
    R(GOMP_loop_ull_doacross_runtime_start),
    R(GOMP_loop_ull_doacross_start),
    R(GOMP_doacross_post),
    R(GOMP_doacross_wait),
    R(GOMP_doacross_ull_post),
    R(GOMP_doacross_ull_wait),
    R(GOMP_sections2_start),
    R(GOMP_scope_start),
    R(GOMP_parallel_loop_static_start),
    R(GOMP_parallel_loop_dynamic_start),
    R(GOMP_parallel_loop_guided_start),
    R(GOMP_parallel_loop_runtime_start),
    R(GOMP_parallel_sections_start),
    R(GOMP_critical_start),
    R(GOMP_critical_end),
    R(GOMP_critical_name_start),
    R(GOMP_critical_name_end),
    R(GOMP_atomic_start),
    R(GOMP_atomic_end),
    R(GOMP_single_start),
    R(GOMP_single_copy_start),
    R(GOMP_single_copy_end),
    R(GOMP_task),
    R(GOMP_taskwait),
    R(GOMP_taskwait_depend),
    R(GOMP_taskyield),
    R(GOMP_taskgroup_start),
    R(GOMP_taskgroup_end),
    R(omp_fulfill_event),
    R(GOMP_cancel),
    R(GOMP_cancellation_point),
    R(omp_get_thread_num),
    R(omp_get_num_threads),
    R(omp_get_max_threads),
    R(omp_in_parallel),
    R(omp_set_num_threads),
    R(omp_get_level),
    R(omp_get_active_level),
    R(omp_get_team_size),
    R(omp_get_ancestor_thread_num),
    R(omp_get_dynamic),
    R(omp_set_dynamic),
    R(omp_get_nested),
    R(omp_set_nested),
    R(omp_get_max_active_levels),
    R(omp_set_max_active_levels),
    R(omp_get_supported_active_levels),
    R(omp_get_thread_limit),
    R(omp_get_schedule),
    R(omp_set_schedule),
    // omp-tasks: task reductions (runtime/task_reduction.cpp), taskloop (runtime/taskloop.cpp),
    // omp_in_final (runtime/task.cpp).
    R(GOMP_parallel_reductions),
    R(GOMP_task_reduction_remap),
    R(GOMP_taskgroup_reduction_register),
    R(GOMP_taskgroup_reduction_unregister),
    R(GOMP_workshare_task_reduction_unregister),
    R(GOMP_taskloop),
    R(GOMP_taskloop_ull),
    R(omp_in_final),
    // omp-target: host teams, the target constructs' host fallback, the Fortran spellings.
    R(GOMP_teams),
    R(GOMP_teams4),
    R(GOMP_teams_reg),
    R(omp_get_num_teams),
    R(omp_get_team_num),
    R(omp_get_max_teams),
    R(omp_set_num_teams),
    R(omp_get_teams_thread_limit),
    R(omp_set_teams_thread_limit),
    R(GOMP_target),
    R(GOMP_target_ext),
    R(GOMP_target_data),
    R(GOMP_target_data_ext),
    R(GOMP_target_end_data),
    R(GOMP_target_update),
    R(GOMP_target_update_ext),
    R(GOMP_target_enter_exit_data),
    R(omp_set_default_allocator),
    R(omp_get_default_allocator),
    R(omp_set_default_allocator_),
    R(omp_get_default_allocator_),
    R(omp_alloc),
    R(omp_aligned_alloc),
    R(omp_calloc),
    R(omp_aligned_calloc),
    R(omp_realloc),
    R(GOMP_alloc),
    R(omp_set_default_device),
    R(omp_get_default_device),
#define PSN_FORTRAN(name) {#name "_", psn_##name##_},
#define PSN_FORTRAN8(name) {#name "_", psn_##name##_}, {#name "_8_", psn_##name##_8_},
#include "abi/openmp/runtime/fortran.def"
#undef PSN_FORTRAN
#undef PSN_FORTRAN8
    // omp-cancel: cancellation (GOMP_cancel and the *_cancel ends are above), the OMP_3.0 nest
    // locks (owned by tasks; the OMP_1.0 ones are owned by threads and forward), pause.
    R(omp_get_cancellation),
    RV(omp_init_nest_lock, "OMP_3.0"),
    RV(omp_destroy_nest_lock, "OMP_3.0"),
    RV(omp_set_nest_lock, "OMP_3.0"),
    RV(omp_unset_nest_lock, "OMP_3.0"),
    RV(omp_test_nest_lock, "OMP_3.0"),
    RV(omp_init_nest_lock_, "OMP_3.0"),
    RV(omp_destroy_nest_lock_, "OMP_3.0"),
    RV(omp_set_nest_lock_, "OMP_3.0"),
    RV(omp_unset_nest_lock_, "OMP_3.0"),
    RV(omp_test_nest_lock_, "OMP_3.0"),
    R(omp_pause_resource),
    R(omp_pause_resource_all),
};
#undef R
#undef RV
#undef AS

}  // namespace

void* runtime_function(const char* name, const char* version) {
  for (const Row& r : kNative)
    if (strcmp(r.name, name) == 0 &&
        (r.version == nullptr || (version != nullptr && strcmp(r.version, version) == 0)))
      return reinterpret_cast<void*>(r.fn);
  return nullptr;
}

}  // namespace poolshim::abi::openmp
