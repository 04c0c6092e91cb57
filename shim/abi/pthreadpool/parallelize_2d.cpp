// pthreadpool_parallelize_2d* (13 functions) on the one pool, as index arithmetic over the 1-D
// primitive (grid.h). Each body receives (thread_index, start[], count[]) and calls
// the client's task with the arguments of the header's serial snippet.
// uarch_index = default_uarch_index, as in pthreadpool_parallelize_1d.cpp.
#include "abi/pthreadpool/api.h"
#include "abi/pthreadpool/grid.h"
#include "abi/pthreadpool/passthrough.h"

using namespace poolshim::abi::ptp;
namespace pass = poolshim::abi::ptp::passthrough;

extern "C" {

void pthreadpool_parallelize_2d(pthreadpool_t pool, pthreadpool_task_2d_t fn, void* context,
                                size_t range_i, size_t range_j, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_2d>())
    return library_fn(pool, fn, context, range_i, range_j, flags);
  grid::run_tiles<2, 0x0>(pool, "pthreadpool_parallelize_2d", {range_i, range_j}, {1, 1}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t*) { fn(context, s[0], s[1]); });
}

void pthreadpool_parallelize_2d_with_thread(pthreadpool_t pool,
                                            pthreadpool_task_2d_with_thread_t fn, void* context,
                                            size_t range_i, size_t range_j, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_with_thread");
  grid::run_tiles<2, 0x0>(
      pool, "pthreadpool_parallelize_2d_with_thread", {range_i, range_j}, {1, 1}, flags,
      poolshim::core::work_of(fn, context),
      [=](size_t t, const size_t* s, const size_t*) { fn(context, t, s[0], s[1]); });
}

void pthreadpool_parallelize_2d_tile_1d(pthreadpool_t pool, pthreadpool_task_2d_tile_1d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t tile_j, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_2d_tile_1d>())
    return library_fn(pool, fn, context, range_i, range_j, tile_j, flags);
  grid::run_tiles<2, 0x2>(
      pool, "pthreadpool_parallelize_2d_tile_1d", {range_i, range_j}, {1, tile_j}, flags,
      poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t* n) { fn(context, s[0], s[1], n[1]); });
}

void pthreadpool_parallelize_2d_tile_1d_with_uarch(pthreadpool_t pool,
                                                   pthreadpool_task_2d_tile_1d_with_id_t fn,
                                                   void* context, uint32_t default_uarch_index,
                                                   uint32_t max_uarch_index, size_t range_i,
                                                   size_t range_j, size_t tile_j, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_tile_1d_with_uarch");
  (void)max_uarch_index;
  grid::run_tiles<2, 0x2>(pool, "pthreadpool_parallelize_2d_tile_1d_with_uarch", {range_i, range_j},
                          {1, tile_j}, flags, poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, s[0], s[1], n[1]);
                          });
}

void pthreadpool_parallelize_2d_tile_1d_with_uarch_with_thread(
    pthreadpool_t pool, pthreadpool_task_2d_tile_1d_with_id_with_thread_t fn, void* context,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t tile_j, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool,
                                     "pthreadpool_parallelize_2d_tile_1d_with_uarch_with_thread");
  (void)max_uarch_index;
  grid::run_tiles<2, 0x2>(pool, "pthreadpool_parallelize_2d_tile_1d_with_uarch_with_thread",
                          {range_i, range_j}, {1, tile_j}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, t, s[0], s[1], n[1]);
                          });
}

void pthreadpool_parallelize_2d_tile_1d_dynamic(pthreadpool_t pool,
                                                pthreadpool_task_2d_tile_1d_dynamic_t fn,
                                                void* context, size_t range_i, size_t range_j,
                                                size_t tile_j, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_tile_1d_dynamic");
  grid::run_dynamic<2, 1>(
      pool, "pthreadpool_parallelize_2d_tile_1d_dynamic", {range_i, range_j}, {1, tile_j}, flags,
      poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t* n) { fn(context, s[0], s[1], n[1]); });
}

void pthreadpool_parallelize_2d_tile_1d_dynamic_with_thread(
    pthreadpool_t pool, pthreadpool_task_2d_tile_1d_dynamic_with_id_t fn, void* context,
    size_t range_i, size_t range_j, size_t tile_j, uint32_t flags) {
  pool =
      pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_tile_1d_dynamic_with_thread");
  grid::run_dynamic<2, 1>(pool, "pthreadpool_parallelize_2d_tile_1d_dynamic_with_thread",
                          {range_i, range_j}, {1, tile_j}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t t, const size_t* s, const size_t* n) {
                            fn(context, static_cast<uint32_t>(t), s[0], s[1], n[1]);
                          });
}

void pthreadpool_parallelize_2d_tile_1d_dynamic_with_uarch_with_thread(
    pthreadpool_t pool, pthreadpool_task_2d_tile_1d_dynamic_with_id_with_thread_t fn, void* context,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t tile_j, uint32_t flags) {
  pool = pass::serial_if_passthrough(
      pool, "pthreadpool_parallelize_2d_tile_1d_dynamic_with_uarch_with_thread");
  (void)max_uarch_index;
  grid::run_dynamic<2, 1>(pool, "pthreadpool_parallelize_2d_tile_1d_dynamic_with_uarch_with_thread",
                          {range_i, range_j}, {1, tile_j}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, t, s[0], s[1], n[1]);
                          });
}

void pthreadpool_parallelize_2d_tile_2d(pthreadpool_t pool, pthreadpool_task_2d_tile_2d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t tile_i, size_t tile_j, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_2d_tile_2d>())
    return library_fn(pool, fn, context, range_i, range_j, tile_i, tile_j, flags);
  grid::run_tiles<2, 0x3>(
      pool, "pthreadpool_parallelize_2d_tile_2d", {range_i, range_j}, {tile_i, tile_j}, flags,
      poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t* n) { fn(context, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_parallelize_2d_tile_2d_dynamic(pthreadpool_t pool,
                                                pthreadpool_task_2d_tile_2d_dynamic_t fn,
                                                void* context, size_t range_i, size_t range_j,
                                                size_t tile_i, size_t tile_j, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_tile_2d_dynamic");
  grid::run_dynamic<2, 2>(
      pool, "pthreadpool_parallelize_2d_tile_2d_dynamic", {range_i, range_j}, {tile_i, tile_j},
      flags, poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t* n) { fn(context, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_parallelize_2d_tile_2d_dynamic_with_uarch(
    pthreadpool_t pool, pthreadpool_task_2d_tile_2d_dynamic_with_id_t fn, void* context,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t tile_i, size_t tile_j, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_tile_2d_dynamic_with_uarch");
  (void)max_uarch_index;
  grid::run_dynamic<2, 2>(pool, "pthreadpool_parallelize_2d_tile_2d_dynamic_with_uarch",
                          {range_i, range_j}, {tile_i, tile_j}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, s[0], s[1], n[0], n[1]);
                          });
}

void pthreadpool_parallelize_2d_tile_2d_dynamic_with_thread(
    pthreadpool_t pool, pthreadpool_task_2d_tile_2d_dynamic_with_id_t fn, void* context,
    size_t range_i, size_t range_j, size_t tile_i, size_t tile_j, uint32_t flags) {
  pool =
      pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_tile_2d_dynamic_with_thread");
  grid::run_dynamic<2, 2>(pool, "pthreadpool_parallelize_2d_tile_2d_dynamic_with_thread",
                          {range_i, range_j}, {tile_i, tile_j}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t t, const size_t* s, const size_t* n) {
                            fn(context, static_cast<uint32_t>(t), s[0], s[1], n[0], n[1]);
                          });
}

void pthreadpool_parallelize_2d_tile_2d_with_uarch(pthreadpool_t pool,
                                                   pthreadpool_task_2d_tile_2d_with_id_t fn,
                                                   void* context, uint32_t default_uarch_index,
                                                   uint32_t max_uarch_index, size_t range_i,
                                                   size_t range_j, size_t tile_i, size_t tile_j,
                                                   uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_2d_tile_2d_with_uarch>())
    return library_fn(pool, fn, context, default_uarch_index, max_uarch_index, range_i, range_j,
                      tile_i, tile_j, flags);
  grid::run_tiles<2, 0x3>(pool, "pthreadpool_parallelize_2d_tile_2d_with_uarch", {range_i, range_j},
                          {tile_i, tile_j}, flags, poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, s[0], s[1], n[0], n[1]);
                          });
}

}  // extern "C"
