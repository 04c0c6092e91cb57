// The native runtime's entry points: psn_<function> for each libgomp function it implements, with
// that function's signature as libgomp declares it (libgomp_g.h for GOMP_*, omp.h.in for omp_*,
// fortran.c for the Fortran spellings omp_*_ and omp_*_8_; libgomp's handle and enum types as
// the integers of their width: omp_sched_t and omp_pause_resource_t int, omp_allocator_handle_t
// uintptr_t, omp_event_handle_t a pointer, the locks void*). Grouped by symbols/openmp.def's
// version nodes, in its order.
//
// The runtime file of each construct includes this header and defines its functions, and
// abi/openmp/runtime_table.cpp maps the rows of symbols/openmp.def onto them: a definition whose
// signature differs from its declaration here is a compile error (two C functions of one name).
// C linkage: they are called through the exported trampolines' jump with the caller's registers,
// so each must have exactly the ABI's signature. Hidden like every other symbol of the shim.
#pragma once
#include <stddef.h>
#include <stdint.h>

extern "C" {
// OMP_1.0
int psn_omp_get_dynamic();
int32_t psn_omp_get_dynamic_();
int psn_omp_get_max_threads();
int32_t psn_omp_get_max_threads_();
int psn_omp_get_nested();
int32_t psn_omp_get_nested_();
int psn_omp_get_num_threads();
int32_t psn_omp_get_num_threads_();
int psn_omp_get_thread_num();
int32_t psn_omp_get_thread_num_();
int psn_omp_in_parallel();
int32_t psn_omp_in_parallel_();
void psn_omp_set_dynamic(int d);
void psn_omp_set_dynamic_(const int32_t* set);
void psn_omp_set_dynamic_8_(const int64_t* set);
void psn_omp_set_nested(int n);
void psn_omp_set_nested_(const int32_t* set);
void psn_omp_set_nested_8_(const int64_t* set);
void psn_omp_set_num_threads(int n);
void psn_omp_set_num_threads_(const int32_t* n);
void psn_omp_set_num_threads_8_(const int64_t* n);

// OMP_3.0
void psn_omp_destroy_nest_lock(void*);
void psn_omp_destroy_nest_lock_(void** p);
int psn_omp_get_active_level();
int32_t psn_omp_get_active_level_();
int psn_omp_get_ancestor_thread_num(int level);
int32_t psn_omp_get_ancestor_thread_num_(const int32_t* level);
int32_t psn_omp_get_ancestor_thread_num_8_(const int64_t* level);
size_t psn_omp_capture_affinity(char* buffer, size_t size, const char* format);
int32_t psn_omp_capture_affinity_(char* buffer, const char* format, size_t buffer_len,
                                  size_t format_len);
void psn_omp_display_affinity(const char* format);
void psn_omp_display_affinity_(const char* format, size_t format_len);
int psn_omp_get_proc_bind();
int32_t psn_omp_get_proc_bind_();
int psn_omp_get_place_num();
int32_t psn_omp_get_place_num_();
int psn_omp_get_partition_num_places();
int32_t psn_omp_get_partition_num_places_();
void psn_omp_get_partition_place_nums(int* place_nums);
void psn_omp_get_partition_place_nums_(int32_t* place_nums);
void psn_omp_get_partition_place_nums_8_(int64_t* place_nums);
int psn_omp_get_level();
int32_t psn_omp_get_level_();
int psn_omp_get_max_active_levels();
int32_t psn_omp_get_max_active_levels_();
void psn_omp_get_schedule(int* kind, int* chunk);
void psn_omp_get_schedule_(int32_t* kind, int32_t* chunk);
void psn_omp_get_schedule_8_(int32_t* kind, int64_t* chunk);
int psn_omp_get_team_size(int level);
int32_t psn_omp_get_team_size_(const int32_t* level);
int32_t psn_omp_get_team_size_8_(const int64_t* level);
int psn_omp_get_thread_limit();
int32_t psn_omp_get_thread_limit_();
void psn_omp_init_nest_lock(void* p);
void psn_omp_init_nest_lock_(void** p);
void psn_omp_set_max_active_levels(int n);
void psn_omp_set_max_active_levels_(const int32_t* levels);
void psn_omp_set_max_active_levels_8_(const int64_t* levels);
void psn_omp_set_nest_lock(void* p);
void psn_omp_set_nest_lock_(void** p);
void psn_omp_set_schedule(int kind, int chunk);
void psn_omp_set_schedule_(const int32_t* kind, const int32_t* chunk);
void psn_omp_set_schedule_8_(const int32_t* kind, const int64_t* chunk);
int psn_omp_test_nest_lock(void* p);
int psn_omp_test_nest_lock_(void** p);
void psn_omp_unset_nest_lock(void* p);
void psn_omp_unset_nest_lock_(void** p);

// OMP_3.1
int psn_omp_in_final();
int32_t psn_omp_in_final_();

// OMP_4.0
int psn_omp_get_cancellation();
int32_t psn_omp_get_cancellation_();
int psn_omp_get_default_device();
int32_t psn_omp_get_default_device_();
int psn_omp_get_num_teams();
int32_t psn_omp_get_num_teams_();
int psn_omp_get_team_num();
int32_t psn_omp_get_team_num_();
void psn_omp_set_default_device(int d);
void psn_omp_set_default_device_(const int32_t* d);
void psn_omp_set_default_device_8_(const int64_t* d);

// OMP_5.0
int psn_omp_pause_resource(int kind, int device_num);
int32_t psn_omp_pause_resource_(const int32_t* kind, const int32_t* device_num);
int psn_omp_pause_resource_all(int kind);
int32_t psn_omp_pause_resource_all_(const int32_t* kind);

// OMP_5.0.1
void* psn_omp_alloc(size_t size, uintptr_t a);
void psn_omp_fulfill_event(void* event);
void psn_omp_fulfill_event_(intptr_t event);
uintptr_t psn_omp_get_default_allocator();
intptr_t psn_omp_get_default_allocator_();
int psn_omp_get_supported_active_levels();
int32_t psn_omp_get_supported_active_levels_();
void psn_omp_set_default_allocator(uintptr_t a);
void psn_omp_set_default_allocator_(const intptr_t* a);

// OMP_5.0.2
void* psn_omp_aligned_alloc(size_t alignment, size_t size, uintptr_t a);
void* psn_omp_aligned_calloc(size_t alignment, size_t n, size_t size, uintptr_t a);
void* psn_omp_calloc(size_t n, size_t size, uintptr_t a);
void* psn_omp_realloc(void* ptr, size_t size, uintptr_t a, uintptr_t free_a);

// OMP_5.1
int psn_omp_get_max_teams();
int32_t psn_omp_get_max_teams_();
int psn_omp_get_teams_thread_limit();
int32_t psn_omp_get_teams_thread_limit_();
void psn_omp_set_num_teams(int n);
void psn_omp_set_num_teams_(const int32_t* n);
void psn_omp_set_num_teams_8_(const int64_t* n);
void psn_omp_set_teams_thread_limit(int n);
void psn_omp_set_teams_thread_limit_(const int32_t* n);
void psn_omp_set_teams_thread_limit_8_(const int64_t* n);

// GOMP_1.0
void psn_GOMP_atomic_end();
void psn_GOMP_atomic_start();
void psn_GOMP_barrier();
void psn_GOMP_critical_end();
void psn_GOMP_critical_name_end(void** pptr);
void psn_GOMP_critical_name_start(void** pptr);
void psn_GOMP_critical_start();
bool psn_GOMP_loop_dynamic_next(long* is, long* ie);
bool psn_GOMP_loop_dynamic_start(long s, long e, long incr, long chunk, long* is, long* ie);
void psn_GOMP_loop_end();
void psn_GOMP_loop_end_nowait();
bool psn_GOMP_loop_guided_next(long* is, long* ie);
bool psn_GOMP_loop_guided_start(long s, long e, long incr, long chunk, long* is, long* ie);
bool psn_GOMP_loop_ordered_dynamic_next(long* is, long* ie);
bool psn_GOMP_loop_ordered_dynamic_start(long s, long e, long incr, long chunk, long* is, long* ie);
bool psn_GOMP_loop_ordered_guided_next(long* is, long* ie);
bool psn_GOMP_loop_ordered_guided_start(long s, long e, long incr, long chunk, long* is, long* ie);
bool psn_GOMP_loop_next(long* is, long* ie);
bool psn_GOMP_loop_ordered_runtime_start(long s, long e, long incr, long* is, long* ie);
bool psn_GOMP_loop_ordered_static_next(long* is, long* ie);
bool psn_GOMP_loop_ordered_static_start(long s, long e, long incr, long chunk, long* is, long* ie);
bool psn_GOMP_loop_runtime_start(long s, long e, long incr, long* is, long* ie);
bool psn_GOMP_loop_static_next(long* is, long* ie);
bool psn_GOMP_loop_static_start(long s, long e, long incr, long chunk, long* is, long* ie);
void psn_GOMP_ordered_end();
void psn_GOMP_ordered_start();
void psn_GOMP_parallel_end();
void psn_GOMP_parallel_loop_dynamic_start(void (*fn)(void*), void* data, unsigned nt, long s,
                                          long e, long incr, long chunk);
void psn_GOMP_parallel_loop_guided_start(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                         long incr, long chunk);
void psn_GOMP_parallel_loop_runtime_start(void (*fn)(void*), void* data, unsigned nt, long s,
                                          long e, long incr);
void psn_GOMP_parallel_loop_static_start(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                         long incr, long chunk);
void psn_GOMP_parallel_sections_start(void (*fn)(void*), void* data, unsigned nt, unsigned count);
void psn_GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads);
void psn_GOMP_sections_end();
void psn_GOMP_sections_end_nowait();
unsigned psn_GOMP_sections_next();
unsigned psn_GOMP_sections_start(unsigned count);
void psn_GOMP_single_copy_end(void* data);
void* psn_GOMP_single_copy_start();
bool psn_GOMP_single_start();

// GOMP_2.0
bool psn_GOMP_loop_ull_next(unsigned long long* is, unsigned long long* ie);
bool psn_GOMP_loop_ull_dynamic_start(bool up, unsigned long long s, unsigned long long e,
                                     unsigned long long incr, unsigned long long chunk,
                                     unsigned long long* is, unsigned long long* ie);
bool psn_GOMP_loop_ull_guided_start(bool up, unsigned long long s, unsigned long long e,
                                    unsigned long long incr, unsigned long long chunk,
                                    unsigned long long* is, unsigned long long* ie);
bool psn_GOMP_loop_ull_ordered_dynamic_start(bool up, unsigned long long s, unsigned long long e,
                                             unsigned long long incr, unsigned long long chunk,
                                             unsigned long long* is, unsigned long long* ie);
bool psn_GOMP_loop_ull_ordered_guided_start(bool up, unsigned long long s, unsigned long long e,
                                            unsigned long long incr, unsigned long long chunk,
                                            unsigned long long* is, unsigned long long* ie);
bool psn_GOMP_loop_ull_ordered_runtime_start(bool up, unsigned long long s, unsigned long long e,
                                             unsigned long long incr, unsigned long long* is,
                                             unsigned long long* ie);
bool psn_GOMP_loop_ull_ordered_static_start(bool up, unsigned long long s, unsigned long long e,
                                            unsigned long long incr, unsigned long long chunk,
                                            unsigned long long* is, unsigned long long* ie);
bool psn_GOMP_loop_ull_runtime_start(bool up, unsigned long long s, unsigned long long e,
                                     unsigned long long incr, unsigned long long* is,
                                     unsigned long long* ie);
bool psn_GOMP_loop_ull_static_start(bool up, unsigned long long s, unsigned long long e,
                                    unsigned long long incr, unsigned long long chunk,
                                    unsigned long long* is, unsigned long long* ie);
void psn_GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                   long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                   void* detach);
void psn_GOMP_taskwait();

// GOMP_3.0
void psn_GOMP_taskyield();

// GOMP_4.0
bool psn_GOMP_barrier_cancel();
bool psn_GOMP_cancel(int which, bool do_cancel);
bool psn_GOMP_cancellation_point(int which);
bool psn_GOMP_loop_end_cancel();
void psn_GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
void psn_GOMP_parallel_loop_dynamic(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                    long incr, long chunk, unsigned flags);
void psn_GOMP_parallel_loop_guided(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                   long incr, long chunk, unsigned flags);
void psn_GOMP_parallel_loop_runtime(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                    long incr, unsigned flags);
void psn_GOMP_parallel_loop_static(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                   long incr, long chunk, unsigned flags);
void psn_GOMP_parallel_sections(void (*fn)(void*), void* data, unsigned nt, unsigned count,
                                unsigned flags);
bool psn_GOMP_sections_end_cancel();
void psn_GOMP_target(int device, void (*fn)(void*), const void* unused, size_t mapnum,
                     void** hostaddrs, size_t* sizes, unsigned char* kinds);
void psn_GOMP_target_data(int device, const void* unused, size_t mapnum, void** hostaddrs,
                          size_t* sizes, unsigned char* kinds);
void psn_GOMP_target_end_data();
void psn_GOMP_target_update(int device, const void* unused, size_t mapnum, void** hostaddrs,
                            size_t* sizes, unsigned char* kinds);
void psn_GOMP_taskgroup_end();
void psn_GOMP_taskgroup_start();
void psn_GOMP_teams(unsigned num_teams, unsigned thread_limit);

// GOMP_4.5
void psn_GOMP_doacross_post(long* counts);
void psn_GOMP_doacross_ull_post(unsigned long long* counts);
void psn_GOMP_doacross_ull_wait(unsigned long long first, ...);
void psn_GOMP_doacross_wait(long first, ...);
bool psn_GOMP_loop_doacross_dynamic_start(unsigned n, long* counts, long chunk, long* is, long* ie);
bool psn_GOMP_loop_doacross_guided_start(unsigned n, long* counts, long chunk, long* is, long* ie);
bool psn_GOMP_loop_doacross_runtime_start(unsigned n, long* counts, long* is, long* ie);
bool psn_GOMP_loop_doacross_static_start(unsigned n, long* counts, long chunk, long* is, long* ie);
bool psn_GOMP_loop_nonmonotonic_dynamic_start(long s, long e, long incr, long chunk, long* is,
                                              long* ie);
bool psn_GOMP_loop_nonmonotonic_guided_start(long s, long e, long incr, long chunk, long* is,
                                             long* ie);
bool psn_GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, unsigned long long s,
                                                  unsigned long long e, unsigned long long incr,
                                                  unsigned long long chunk, unsigned long long* is,
                                                  unsigned long long* ie);
bool psn_GOMP_loop_ull_doacross_dynamic_start(unsigned n, unsigned long long* counts,
                                              unsigned long long chunk, unsigned long long* is,
                                              unsigned long long* ie);
bool psn_GOMP_loop_ull_doacross_guided_start(unsigned n, unsigned long long* counts,
                                             unsigned long long chunk, unsigned long long* is,
                                             unsigned long long* ie);
bool psn_GOMP_loop_ull_doacross_runtime_start(unsigned n, unsigned long long* counts,
                                              unsigned long long* is, unsigned long long* ie);
bool psn_GOMP_loop_ull_doacross_static_start(unsigned n, unsigned long long* counts,
                                             unsigned long long chunk, unsigned long long* is,
                                             unsigned long long* ie);
void psn_GOMP_parallel_loop_nonmonotonic_dynamic(void (*fn)(void*), void* data, unsigned nt, long s,
                                                 long e, long incr, long chunk, unsigned flags);
void psn_GOMP_parallel_loop_nonmonotonic_guided(void (*fn)(void*), void* data, unsigned nt, long s,
                                                long e, long incr, long chunk, unsigned flags);
void psn_GOMP_target_data_ext(int device, size_t mapnum, void** hostaddrs, size_t* sizes,
                              unsigned short* kinds);
void psn_GOMP_target_enter_exit_data(int device, size_t mapnum, void** hostaddrs, size_t* sizes,
                                     unsigned short* kinds, unsigned flags, void** depend);
void psn_GOMP_target_ext(int device, void (*fn)(void*), size_t mapnum, void** hostaddrs,
                         size_t* sizes, unsigned short* kinds, unsigned flags, void** depend,
                         void** args);
void psn_GOMP_target_update_ext(int device, size_t mapnum, void** hostaddrs, size_t* sizes,
                                unsigned short* kinds, unsigned flags, void** depend);
void psn_GOMP_taskloop(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                       long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                       long start, long end, long step);
void psn_GOMP_taskloop_ull(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*),
                           long arg_size, long arg_align, unsigned flags, unsigned long num_tasks,
                           int priority, unsigned long long start, unsigned long long end,
                           unsigned long long step);

// GOMP_5.0
bool psn_GOMP_loop_doacross_start(unsigned n, long* counts, long sched, long chunk, long* is,
                                  long* ie, uintptr_t* reductions, void** mem);
bool psn_GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                 long* istart, long* iend, uintptr_t* reductions, void** mem);
bool psn_GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long* istart,
                         long* iend, uintptr_t* reductions, void** mem);
bool psn_GOMP_loop_ull_doacross_start(unsigned n, unsigned long long* counts, long sched,
                                      unsigned long long chunk, unsigned long long* is,
                                      unsigned long long* ie, uintptr_t* reductions, void** mem);
bool psn_GOMP_loop_ull_ordered_start(bool up, unsigned long long start, unsigned long long end,
                                     unsigned long long incr, long sched, unsigned long long chunk,
                                     unsigned long long* istart, unsigned long long* iend,
                                     uintptr_t* reductions, void** mem);
bool psn_GOMP_loop_ull_start(bool up, unsigned long long start, unsigned long long end,
                             unsigned long long incr, long sched, unsigned long long chunk,
                             unsigned long long* istart, unsigned long long* iend,
                             uintptr_t* reductions, void** mem);
unsigned psn_GOMP_parallel_reductions(void (*fn)(void*), void* data, unsigned num_threads,
                                      unsigned flags);
unsigned psn_GOMP_sections2_start(unsigned count, uintptr_t* reductions, void** mem);
void psn_GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void** ptrs);
void psn_GOMP_taskgroup_reduction_register(uintptr_t* data);
void psn_GOMP_taskgroup_reduction_unregister(uintptr_t* data);
void psn_GOMP_taskwait_depend(void**);
void psn_GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams, unsigned thread_limit,
                        unsigned flags);
void psn_GOMP_workshare_task_reduction_unregister(bool cancelled);

// GOMP_5.0.1
void* psn_GOMP_alloc(size_t alignment, size_t size, uintptr_t a);

// GOMP_5.1
void psn_GOMP_scope_start(uintptr_t* reductions);
bool psn_GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                     bool first);

}  // extern "C"
