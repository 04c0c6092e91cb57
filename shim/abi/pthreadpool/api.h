// Our own declarations of the complete public pthreadpool C API: the 58 functions of
// google/pthreadpool's include/pthreadpool.h as of 2025 (create_v2 with an executor context,
// set_threads_count, release_executor_threads, update_executor, every parallelize_* variant and
// the deprecated compute_* API), with the task typedefs they take.
//
// Why not #include <pthreadpool.h>: Debian's header is the 2021 version (30 functions, no
// executor), and the shim must not depend on which version a build machine has. The signatures
// below are the ABI; they never change meaning between upstream versions.
//
// Every function is defined in shim/abi/pthreadpool/*.cpp with C linkage and default visibility
// (shim/exports.map admits pthreadpool_*). docs/pthreadpool-coverage.md lists them.
#pragma once

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#if defined(POOLSHIM_BUILDING)
#define POOLSHIM_PTP_API __attribute__((visibility("default")))
#else
#define POOLSHIM_PTP_API
#endif

typedef struct pthreadpool* pthreadpool_t;

// Task types (upstream names). "with_id" tasks get a uint32_t first: the uarch index for the
// *_with_uarch functions, the thread index for the *_dynamic_with_thread ones.
typedef void (*pthreadpool_task_1d_t)(void*, size_t);
typedef void (*pthreadpool_task_1d_with_thread_t)(void*, size_t, size_t);
typedef void (*pthreadpool_task_1d_tile_1d_t)(void*, size_t, size_t);
typedef void (*pthreadpool_task_1d_tile_1d_dynamic_t)(void*, size_t, size_t);
typedef void (*pthreadpool_task_1d_tile_1d_dynamic_with_id_t)(void*, uint32_t, size_t, size_t);
typedef void (*pthreadpool_task_2d_t)(void*, size_t, size_t);
typedef void (*pthreadpool_task_2d_with_thread_t)(void*, size_t, size_t, size_t);
typedef void (*pthreadpool_task_2d_tile_1d_t)(void*, size_t, size_t, size_t);
typedef void (*pthreadpool_task_2d_tile_1d_dynamic_t)(void*, size_t, size_t, size_t);
typedef void (*pthreadpool_task_2d_tile_2d_t)(void*, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_2d_tile_2d_dynamic_t)(void*, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_3d_t)(void*, size_t, size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_1d_t)(void*, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_1d_with_thread_t)(void*, size_t, size_t, size_t, size_t,
                                                          size_t);
typedef void (*pthreadpool_task_3d_tile_1d_dynamic_t)(void*, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_2d_t)(void*, size_t, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_2d_dynamic_t)(void*, size_t, size_t, size_t, size_t,
                                                      size_t);
typedef void (*pthreadpool_task_4d_t)(void*, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_4d_tile_1d_t)(void*, size_t, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_4d_tile_2d_t)(void*, size_t, size_t, size_t, size_t, size_t,
                                              size_t);
typedef void (*pthreadpool_task_4d_tile_2d_dynamic_t)(void*, size_t, size_t, size_t, size_t, size_t,
                                                      size_t);
typedef void (*pthreadpool_task_5d_t)(void*, size_t, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_5d_tile_1d_t)(void*, size_t, size_t, size_t, size_t, size_t,
                                              size_t);
typedef void (*pthreadpool_task_5d_tile_2d_t)(void*, size_t, size_t, size_t, size_t, size_t, size_t,
                                              size_t);
typedef void (*pthreadpool_task_6d_t)(void*, size_t, size_t, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_6d_tile_1d_t)(void*, size_t, size_t, size_t, size_t, size_t, size_t,
                                              size_t);
typedef void (*pthreadpool_task_6d_tile_2d_t)(void*, size_t, size_t, size_t, size_t, size_t, size_t,
                                              size_t, size_t);

typedef void (*pthreadpool_task_1d_with_id_t)(void*, uint32_t, size_t);
typedef void (*pthreadpool_task_2d_tile_1d_with_id_t)(void*, uint32_t, size_t, size_t, size_t);
typedef void (*pthreadpool_task_2d_tile_1d_dynamic_with_id_t)(void*, uint32_t, size_t, size_t,
                                                              size_t);
typedef void (*pthreadpool_task_2d_tile_2d_with_id_t)(void*, uint32_t, size_t, size_t, size_t,
                                                      size_t);
typedef void (*pthreadpool_task_2d_tile_2d_dynamic_with_id_t)(void*, uint32_t, size_t, size_t,
                                                              size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_1d_with_id_t)(void*, uint32_t, size_t, size_t, size_t,
                                                      size_t);
typedef void (*pthreadpool_task_3d_tile_1d_dynamic_with_id_t)(void*, uint32_t, size_t, size_t,
                                                              size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_2d_with_id_t)(void*, uint32_t, size_t, size_t, size_t,
                                                      size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_2d_dynamic_with_id_t)(void*, uint32_t, size_t, size_t,
                                                              size_t, size_t, size_t);
typedef void (*pthreadpool_task_4d_tile_2d_with_id_t)(void*, uint32_t, size_t, size_t, size_t,
                                                      size_t, size_t, size_t);
typedef void (*pthreadpool_task_4d_tile_2d_dynamic_with_id_t)(void*, uint32_t, size_t, size_t,
                                                              size_t, size_t, size_t, size_t);

// (context, uarch_index, thread_index, ...)
typedef void (*pthreadpool_task_1d_tile_1d_dynamic_with_id_with_thread_t)(void*, uint32_t, size_t,
                                                                          size_t, size_t);
typedef void (*pthreadpool_task_2d_tile_1d_with_id_with_thread_t)(void*, uint32_t, size_t, size_t,
                                                                  size_t, size_t);
typedef void (*pthreadpool_task_2d_tile_1d_dynamic_with_id_with_thread_t)(void*, uint32_t, size_t,
                                                                          size_t, size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_1d_with_id_with_thread_t)(void*, uint32_t, size_t, size_t,
                                                                  size_t, size_t, size_t);
typedef void (*pthreadpool_task_3d_tile_1d_dynamic_with_id_with_thread_t)(void*, uint32_t, size_t,
                                                                          size_t, size_t, size_t,
                                                                          size_t);

// Legacy (compute_*) task types.
typedef void (*pthreadpool_function_1d_t)(void*, size_t);
typedef void (*pthreadpool_function_1d_tiled_t)(void*, size_t, size_t);
typedef void (*pthreadpool_function_2d_t)(void*, size_t, size_t);
typedef void (*pthreadpool_function_2d_tiled_t)(void*, size_t, size_t, size_t, size_t);
typedef void (*pthreadpool_function_3d_tiled_t)(void*, size_t, size_t, size_t, size_t, size_t,
                                                size_t);
typedef void (*pthreadpool_function_4d_tiled_t)(void*, size_t, size_t, size_t, size_t, size_t,
                                                size_t, size_t, size_t);

#define PTHREADPOOL_FLAG_DISABLE_DENORMALS 0x00000001
#define PTHREADPOOL_FLAG_YIELD_WORKERS 0x00000002
#define PTHREADPOOL_FLAG_DONT_SPIN_WORKERS 0x00000004

#ifdef __cplusplus
extern "C" {
#endif

// A client-supplied source of threads (pthreadpool_create_v2). Upstream 2025 layout.
struct pthreadpool_executor {
  int (*num_threads)(void* executor_context);
  void (*schedule)(void* executor_context, void* context, void (*task)(void* context));
};

// ---- lifecycle (7) -----------------------------------------------------------------------------
POOLSHIM_PTP_API pthreadpool_t pthreadpool_create(size_t threads_count);
POOLSHIM_PTP_API pthreadpool_t pthreadpool_create_v2(struct pthreadpool_executor* executor,
                                                     void* executor_context,
                                                     size_t max_num_threads);
POOLSHIM_PTP_API size_t pthreadpool_get_threads_count(pthreadpool_t threadpool);
POOLSHIM_PTP_API size_t pthreadpool_set_threads_count(pthreadpool_t threadpool, size_t num_threads);
POOLSHIM_PTP_API void pthreadpool_release_executor_threads(pthreadpool_t threadpool);
POOLSHIM_PTP_API bool pthreadpool_update_executor(pthreadpool_t threadpool,
                                                  struct pthreadpool_executor* executor,
                                                  void* executor_context);
POOLSHIM_PTP_API void pthreadpool_destroy(pthreadpool_t threadpool);

// ---- 1D (7) ------------------------------------------------------------------------------------
POOLSHIM_PTP_API void pthreadpool_parallelize_1d(pthreadpool_t, pthreadpool_task_1d_t, void*,
                                                 size_t range, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_1d_with_thread(pthreadpool_t,
                                                             pthreadpool_task_1d_with_thread_t,
                                                             void*, size_t range, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_1d_with_uarch(pthreadpool_t,
                                                            pthreadpool_task_1d_with_id_t, void*,
                                                            uint32_t default_uarch_index,
                                                            uint32_t max_uarch_index, size_t range,
                                                            uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t,
                                                         pthreadpool_task_1d_tile_1d_t, void*,
                                                         size_t range, size_t tile, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_1d_tile_1d_dynamic(
    pthreadpool_t, pthreadpool_task_1d_tile_1d_dynamic_t, void*, size_t range, size_t tile,
    uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_1d_tile_1d_dynamic_with_thread(
    pthreadpool_t, pthreadpool_task_1d_tile_1d_dynamic_with_id_t, void*, size_t range, size_t tile,
    uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_1d_tile_1d_dynamic_with_uarch_with_thread(
    pthreadpool_t, pthreadpool_task_1d_tile_1d_dynamic_with_id_with_thread_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range, size_t tile,
    uint32_t flags);

// ---- 2D (13) -----------------------------------------------------------------------------------
POOLSHIM_PTP_API void pthreadpool_parallelize_2d(pthreadpool_t, pthreadpool_task_2d_t, void*,
                                                 size_t range_i, size_t range_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_with_thread(pthreadpool_t,
                                                             pthreadpool_task_2d_with_thread_t,
                                                             void*, size_t range_i, size_t range_j,
                                                             uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t,
                                                         pthreadpool_task_2d_tile_1d_t, void*,
                                                         size_t range_i, size_t range_j,
                                                         size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_1d_with_uarch(
    pthreadpool_t, pthreadpool_task_2d_tile_1d_with_id_t, void*, uint32_t default_uarch_index,
    uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_1d_with_uarch_with_thread(
    pthreadpool_t, pthreadpool_task_2d_tile_1d_with_id_with_thread_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_1d_dynamic(
    pthreadpool_t, pthreadpool_task_2d_tile_1d_dynamic_t, void*, size_t range_i, size_t range_j,
    size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_1d_dynamic_with_thread(
    pthreadpool_t, pthreadpool_task_2d_tile_1d_dynamic_with_id_t, void*, size_t range_i,
    size_t range_j, size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_1d_dynamic_with_uarch_with_thread(
    pthreadpool_t, pthreadpool_task_2d_tile_1d_dynamic_with_id_with_thread_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t,
                                                         pthreadpool_task_2d_tile_2d_t, void*,
                                                         size_t range_i, size_t range_j,
                                                         size_t tile_i, size_t tile_j,
                                                         uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_2d_dynamic(
    pthreadpool_t, pthreadpool_task_2d_tile_2d_dynamic_t, void*, size_t range_i, size_t range_j,
    size_t tile_i, size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_2d_dynamic_with_uarch(
    pthreadpool_t, pthreadpool_task_2d_tile_2d_dynamic_with_id_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t tile_i, size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_2d_dynamic_with_thread(
    pthreadpool_t, pthreadpool_task_2d_tile_2d_dynamic_with_id_t, void*, size_t range_i,
    size_t range_j, size_t tile_i, size_t tile_j, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_2d_tile_2d_with_uarch(
    pthreadpool_t, pthreadpool_task_2d_tile_2d_with_id_t, void*, uint32_t default_uarch_index,
    uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t tile_i, size_t tile_j,
    uint32_t flags);

// ---- 3D (13) -----------------------------------------------------------------------------------
POOLSHIM_PTP_API void pthreadpool_parallelize_3d(pthreadpool_t, pthreadpool_task_3d_t, void*,
                                                 size_t range_i, size_t range_j, size_t range_k,
                                                 uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_1d(pthreadpool_t,
                                                         pthreadpool_task_3d_tile_1d_t, void*,
                                                         size_t range_i, size_t range_j,
                                                         size_t range_k, size_t tile_k,
                                                         uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_1d_with_thread(
    pthreadpool_t, pthreadpool_task_3d_tile_1d_with_thread_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_1d_with_uarch(
    pthreadpool_t, pthreadpool_task_3d_tile_1d_with_id_t, void*, uint32_t default_uarch_index,
    uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t range_k, size_t tile_k,
    uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_1d_with_uarch_with_thread(
    pthreadpool_t, pthreadpool_task_3d_tile_1d_with_id_with_thread_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t range_k, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_1d_dynamic(
    pthreadpool_t, pthreadpool_task_3d_tile_1d_dynamic_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_1d_dynamic_with_thread(
    pthreadpool_t, pthreadpool_task_3d_tile_1d_dynamic_with_id_t, void*, size_t range_i,
    size_t range_j, size_t range_k, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_1d_dynamic_with_uarch_with_thread(
    pthreadpool_t, pthreadpool_task_3d_tile_1d_dynamic_with_id_with_thread_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t range_k, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_2d(pthreadpool_t,
                                                         pthreadpool_task_3d_tile_2d_t, void*,
                                                         size_t range_i, size_t range_j,
                                                         size_t range_k, size_t tile_j,
                                                         size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_2d_dynamic(
    pthreadpool_t, pthreadpool_task_3d_tile_2d_dynamic_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t tile_j, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_2d_dynamic_with_uarch(
    pthreadpool_t, pthreadpool_task_3d_tile_2d_dynamic_with_id_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t range_k, size_t tile_j, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_2d_dynamic_with_thread(
    pthreadpool_t, pthreadpool_task_3d_tile_2d_dynamic_with_id_t, void*, size_t range_i,
    size_t range_j, size_t range_k, size_t tile_j, size_t tile_k, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_3d_tile_2d_with_uarch(
    pthreadpool_t, pthreadpool_task_3d_tile_2d_with_id_t, void*, uint32_t default_uarch_index,
    uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t range_k, size_t tile_j,
    size_t tile_k, uint32_t flags);

// ---- 4D (6), 5D (3), 6D (3) --------------------------------------------------------------------
POOLSHIM_PTP_API void pthreadpool_parallelize_4d(pthreadpool_t, pthreadpool_task_4d_t, void*,
                                                 size_t range_i, size_t range_j, size_t range_k,
                                                 size_t range_l, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_4d_tile_1d(pthreadpool_t,
                                                         pthreadpool_task_4d_tile_1d_t, void*,
                                                         size_t range_i, size_t range_j,
                                                         size_t range_k, size_t range_l,
                                                         size_t tile_l, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_4d_tile_2d(
    pthreadpool_t, pthreadpool_task_4d_tile_2d_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t tile_k, size_t tile_l, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_4d_tile_2d_with_uarch(
    pthreadpool_t, pthreadpool_task_4d_tile_2d_with_id_t, void*, uint32_t default_uarch_index,
    uint32_t max_uarch_index, size_t range_i, size_t range_j, size_t range_k, size_t range_l,
    size_t tile_k, size_t tile_l, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_4d_tile_2d_dynamic(
    pthreadpool_t, pthreadpool_task_4d_tile_2d_dynamic_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t tile_k, size_t tile_l, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_4d_tile_2d_dynamic_with_uarch(
    pthreadpool_t, pthreadpool_task_4d_tile_2d_dynamic_with_id_t, void*,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t tile_k, size_t tile_l, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_5d(pthreadpool_t, pthreadpool_task_5d_t, void*,
                                                 size_t range_i, size_t range_j, size_t range_k,
                                                 size_t range_l, size_t range_m, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_5d_tile_1d(
    pthreadpool_t, pthreadpool_task_5d_tile_1d_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t range_m, size_t tile_m, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_5d_tile_2d(
    pthreadpool_t, pthreadpool_task_5d_tile_2d_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t range_m, size_t tile_l, size_t tile_m, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_6d(pthreadpool_t, pthreadpool_task_6d_t, void*,
                                                 size_t range_i, size_t range_j, size_t range_k,
                                                 size_t range_l, size_t range_m, size_t range_n,
                                                 uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_6d_tile_1d(
    pthreadpool_t, pthreadpool_task_6d_tile_1d_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t range_m, size_t range_n, size_t tile_n, uint32_t flags);
POOLSHIM_PTP_API void pthreadpool_parallelize_6d_tile_2d(
    pthreadpool_t, pthreadpool_task_6d_tile_2d_t, void*, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t range_m, size_t range_n, size_t tile_m, size_t tile_n,
    uint32_t flags);

// ---- deprecated compute_* (6) ------------------------------------------------------------------
POOLSHIM_PTP_API void pthreadpool_compute_1d(pthreadpool_t, pthreadpool_function_1d_t, void*,
                                             size_t range);
POOLSHIM_PTP_API void pthreadpool_compute_1d_tiled(pthreadpool_t, pthreadpool_function_1d_tiled_t,
                                                   void*, size_t range, size_t tile);
POOLSHIM_PTP_API void pthreadpool_compute_2d(pthreadpool_t, pthreadpool_function_2d_t, void*,
                                             size_t range_i, size_t range_j);
POOLSHIM_PTP_API void pthreadpool_compute_2d_tiled(pthreadpool_t, pthreadpool_function_2d_tiled_t,
                                                   void*, size_t range_i, size_t range_j,
                                                   size_t tile_i, size_t tile_j);
POOLSHIM_PTP_API void pthreadpool_compute_3d_tiled(pthreadpool_t, pthreadpool_function_3d_tiled_t,
                                                   void*, size_t range_i, size_t range_j,
                                                   size_t range_k, size_t tile_i, size_t tile_j,
                                                   size_t tile_k);
POOLSHIM_PTP_API void pthreadpool_compute_4d_tiled(pthreadpool_t, pthreadpool_function_4d_tiled_t,
                                                   void*, size_t range_i, size_t range_j,
                                                   size_t range_k, size_t range_l, size_t tile_i,
                                                   size_t tile_j, size_t tile_k, size_t tile_l);

#ifdef __cplusplus
}  // extern "C"
#endif
