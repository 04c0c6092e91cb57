// The Fortran spellings (omp_*_ and omp_*_8_ rows of symbols/openmp.def) of the native omp_*
// rows: arguments by reference, int32_t results, and the _8_ variants' int64_t
// arguments narrowed as libgomp's fortran.c narrows them (TO_INT: clamped to int; logicals
// through !!), read for the semantics. Each calls the native C spelling, so a Fortran program
// under POOLSHIM_OPENMP=shim sees the same team as a C one; those of rows defined elsewhere
// (omp_in_final, omp_get_cancellation, omp_pause_resource*) call the C spelling's exported entry
// point, which goes wherever that row goes (libgomp's fortran.c calls its C spelling too).
#include <limits.h>
#include <stdint.h>

#include "abi/openmp/runtime/entry_points.h"

extern "C" {
// Rows defined elsewhere in the runtime, called through the shim's own exported entry points (the
// trampolines of abi/openmp/trampolines.cpp): native or forwarded, as their C rows are.
int omp_in_final();
int omp_get_cancellation();
int omp_pause_resource(int kind, int device_num);
int omp_pause_resource_all(int kind);
}

namespace {

int to_int(int64_t v) {
  return v > INT_MIN ? (v < INT_MAX ? static_cast<int>(v) : INT_MAX) : INT_MIN;
}

constexpr int kMonotonic = static_cast<int>(0x80000000u);  // omp_sched_monotonic

}  // namespace

extern "C" {

int32_t psn_omp_get_active_level_() { return psn_omp_get_active_level(); }
int32_t psn_omp_get_ancestor_thread_num_(const int32_t* level) {
  return psn_omp_get_ancestor_thread_num(*level);
}
int32_t psn_omp_get_ancestor_thread_num_8_(const int64_t* level) {
  return psn_omp_get_ancestor_thread_num(to_int(*level));
}
int32_t psn_omp_get_default_device_() { return psn_omp_get_default_device(); }
int32_t psn_omp_get_dynamic_() { return psn_omp_get_dynamic(); }
int32_t psn_omp_get_level_() { return psn_omp_get_level(); }
int32_t psn_omp_get_max_active_levels_() { return psn_omp_get_max_active_levels(); }
int32_t psn_omp_get_max_teams_() { return psn_omp_get_max_teams(); }
int32_t psn_omp_get_max_threads_() { return psn_omp_get_max_threads(); }
int32_t psn_omp_get_nested_() { return psn_omp_get_nested(); }
int32_t psn_omp_get_num_teams_() { return psn_omp_get_num_teams(); }
int32_t psn_omp_get_num_threads_() { return psn_omp_get_num_threads(); }
// libgomp masks the monotonic modifier off: OpenMP 4.5 Fortran code does not expect it.
void psn_omp_get_schedule_(int32_t* kind, int32_t* chunk) {
  int k, c;
  psn_omp_get_schedule(&k, &c);
  *kind = k & ~kMonotonic;
  *chunk = c;
}
void psn_omp_get_schedule_8_(int32_t* kind, int64_t* chunk) {
  int k, c;
  psn_omp_get_schedule(&k, &c);
  *kind = k & ~kMonotonic;
  *chunk = c;
}
int32_t psn_omp_get_supported_active_levels_() { return psn_omp_get_supported_active_levels(); }
int32_t psn_omp_get_team_num_() { return psn_omp_get_team_num(); }
int32_t psn_omp_get_proc_bind_() { return psn_omp_get_proc_bind(); }
int32_t psn_omp_get_place_num_() { return psn_omp_get_place_num(); }
int32_t psn_omp_get_partition_num_places_() { return psn_omp_get_partition_num_places(); }
void psn_omp_get_partition_place_nums_(int32_t* place_nums) {
  psn_omp_get_partition_place_nums(reinterpret_cast<int*>(place_nums));
}
// psn_omp_get_partition_place_nums_8_: affinity_api.cpp (it widens each number).
int32_t psn_omp_get_team_size_(const int32_t* level) { return psn_omp_get_team_size(*level); }
int32_t psn_omp_get_team_size_8_(const int64_t* level) {
  return psn_omp_get_team_size(to_int(*level));
}
int32_t psn_omp_get_teams_thread_limit_() { return psn_omp_get_teams_thread_limit(); }
int32_t psn_omp_get_thread_limit_() { return psn_omp_get_thread_limit(); }
int32_t psn_omp_get_thread_num_() { return psn_omp_get_thread_num(); }
int32_t psn_omp_in_parallel_() { return psn_omp_in_parallel(); }

void psn_omp_set_default_device_(const int32_t* d) { psn_omp_set_default_device(*d); }
void psn_omp_set_default_device_8_(const int64_t* d) { psn_omp_set_default_device(to_int(*d)); }
void psn_omp_set_dynamic_(const int32_t* set) { psn_omp_set_dynamic(*set); }
void psn_omp_set_dynamic_8_(const int64_t* set) { psn_omp_set_dynamic(!!*set); }
void psn_omp_set_max_active_levels_(const int32_t* levels) {
  psn_omp_set_max_active_levels(*levels);
}
void psn_omp_set_max_active_levels_8_(const int64_t* levels) {
  psn_omp_set_max_active_levels(to_int(*levels));
}
void psn_omp_set_nested_(const int32_t* set) { psn_omp_set_nested(*set); }
void psn_omp_set_nested_8_(const int64_t* set) { psn_omp_set_nested(!!*set); }
void psn_omp_set_num_teams_(const int32_t* n) { psn_omp_set_num_teams(*n); }
void psn_omp_set_num_teams_8_(const int64_t* n) { psn_omp_set_num_teams(to_int(*n)); }
void psn_omp_set_num_threads_(const int32_t* n) { psn_omp_set_num_threads(*n); }
void psn_omp_set_num_threads_8_(const int64_t* n) { psn_omp_set_num_threads(to_int(*n)); }
void psn_omp_set_schedule_(const int32_t* kind, const int32_t* chunk) {
  psn_omp_set_schedule(*kind, *chunk);
}
void psn_omp_set_schedule_8_(const int32_t* kind, const int64_t* chunk) {
  psn_omp_set_schedule(*kind, to_int(*chunk));
}
void psn_omp_set_teams_thread_limit_(const int32_t* n) { psn_omp_set_teams_thread_limit(*n); }
void psn_omp_set_teams_thread_limit_8_(const int64_t* n) {
  psn_omp_set_teams_thread_limit(to_int(*n));
}
int32_t psn_omp_in_final_() { return omp_in_final(); }
int32_t psn_omp_get_cancellation_() { return omp_get_cancellation(); }
int32_t psn_omp_pause_resource_(const int32_t* kind, const int32_t* device_num) {
  return omp_pause_resource(*kind, *device_num);
}
int32_t psn_omp_pause_resource_all_(const int32_t* kind) { return omp_pause_resource_all(*kind); }
// The event handle by value (an integer of kind omp_event_handle_kind), as libgomp takes it.
void psn_omp_fulfill_event_(intptr_t event) {
  psn_omp_fulfill_event(reinterpret_cast<void*>(event));
}

}  // extern "C"
