// pthreadpool_parallelize_4d*, _5d*, _6d* (12 functions) on the one pool, as index arithmetic
// over the 1-D primitive (grid.h). uarch_index = default_uarch_index.
#include "abi/pthreadpool/api.h"
#include "abi/pthreadpool/grid.h"
#include "abi/pthreadpool/passthrough.h"

using namespace poolshim::abi::ptp;
namespace pass = poolshim::abi::ptp::passthrough;

extern "C" {

void pthreadpool_parallelize_4d(pthreadpool_t pool, pthreadpool_task_4d_t fn, void* context,
                                size_t range_i, size_t range_j, size_t range_k, size_t range_l,
                                uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_4d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, flags);
  grid::run_tiles<4, 0x0>(
      pool, "pthreadpool_parallelize_4d", {range_i, range_j, range_k, range_l}, {1, 1, 1, 1}, flags,
      poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t*) { fn(context, s[0], s[1], s[2], s[3]); });
}

void pthreadpool_parallelize_4d_tile_1d(pthreadpool_t pool, pthreadpool_task_4d_tile_1d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t range_k, size_t range_l, size_t tile_l,
                                        uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_4d_tile_1d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, tile_l, flags);
  grid::run_tiles<4, 0x8>(
      pool, "pthreadpool_parallelize_4d_tile_1d", {range_i, range_j, range_k, range_l},
      {1, 1, 1, tile_l}, flags, poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t* n) { fn(context, s[0], s[1], s[2], s[3], n[3]); });
}

void pthreadpool_parallelize_4d_tile_2d(pthreadpool_t pool, pthreadpool_task_4d_tile_2d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t range_k, size_t range_l, size_t tile_k,
                                        size_t tile_l, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_4d_tile_2d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, tile_k, tile_l, flags);
  grid::run_tiles<4, 0xc>(pool, "pthreadpool_parallelize_4d_tile_2d",
                          {range_i, range_j, range_k, range_l}, {1, 1, tile_k, tile_l}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(context, s[0], s[1], s[2], s[3], n[2], n[3]);
                          });
}

void pthreadpool_parallelize_4d_tile_2d_with_uarch(pthreadpool_t pool,
                                                   pthreadpool_task_4d_tile_2d_with_id_t fn,
                                                   void* context, uint32_t default_uarch_index,
                                                   uint32_t max_uarch_index, size_t range_i,
                                                   size_t range_j, size_t range_k, size_t range_l,
                                                   size_t tile_k, size_t tile_l, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_4d_tile_2d_with_uarch>())
    return library_fn(pool, fn, context, default_uarch_index, max_uarch_index, range_i, range_j,
                      range_k, range_l, tile_k, tile_l, flags);
  grid::run_tiles<4, 0xc>(pool, "pthreadpool_parallelize_4d_tile_2d_with_uarch",
                          {range_i, range_j, range_k, range_l}, {1, 1, tile_k, tile_l}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, s[0], s[1], s[2], s[3], n[2], n[3]);
                          });
}

void pthreadpool_parallelize_4d_tile_2d_dynamic(pthreadpool_t pool,
                                                pthreadpool_task_4d_tile_2d_dynamic_t fn,
                                                void* context, size_t range_i, size_t range_j,
                                                size_t range_k, size_t range_l, size_t tile_k,
                                                size_t tile_l, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_4d_tile_2d_dynamic");
  grid::run_dynamic<4, 2>(pool, "pthreadpool_parallelize_4d_tile_2d_dynamic",
                          {range_i, range_j, range_k, range_l}, {1, 1, tile_k, tile_l}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(context, s[0], s[1], s[2], s[3], n[2], n[3]);
                          });
}

void pthreadpool_parallelize_4d_tile_2d_dynamic_with_uarch(
    pthreadpool_t pool, pthreadpool_task_4d_tile_2d_dynamic_with_id_t fn, void* context,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range_i, size_t range_j,
    size_t range_k, size_t range_l, size_t tile_k, size_t tile_l, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_4d_tile_2d_dynamic_with_uarch");
  (void)max_uarch_index;
  grid::run_dynamic<4, 2>(pool, "pthreadpool_parallelize_4d_tile_2d_dynamic_with_uarch",
                          {range_i, range_j, range_k, range_l}, {1, 1, tile_k, tile_l}, flags,
                          poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, s[0], s[1], s[2], s[3], n[2], n[3]);
                          });
}

void pthreadpool_parallelize_5d(pthreadpool_t pool, pthreadpool_task_5d_t fn, void* context,
                                size_t range_i, size_t range_j, size_t range_k, size_t range_l,
                                size_t range_m, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_5d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, range_m, flags);
  grid::run_tiles<5, 0x0>(
      pool, "pthreadpool_parallelize_5d", {range_i, range_j, range_k, range_l, range_m},
      {1, 1, 1, 1, 1}, flags, poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t*) { fn(context, s[0], s[1], s[2], s[3], s[4]); });
}

void pthreadpool_parallelize_5d_tile_1d(pthreadpool_t pool, pthreadpool_task_5d_tile_1d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t range_k, size_t range_l, size_t range_m,
                                        size_t tile_m, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_5d_tile_1d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, range_m, tile_m,
                      flags);
  grid::run_tiles<5, 0x10>(pool, "pthreadpool_parallelize_5d_tile_1d",
                           {range_i, range_j, range_k, range_l, range_m}, {1, 1, 1, 1, tile_m},
                           flags, poolshim::core::work_of(fn, context),
                           [=](size_t, const size_t* s, const size_t* n) {
                             fn(context, s[0], s[1], s[2], s[3], s[4], n[4]);
                           });
}

void pthreadpool_parallelize_5d_tile_2d(pthreadpool_t pool, pthreadpool_task_5d_tile_2d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t range_k, size_t range_l, size_t range_m,
                                        size_t tile_l, size_t tile_m, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_5d_tile_2d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, range_m, tile_l,
                      tile_m, flags);
  grid::run_tiles<5, 0x18>(pool, "pthreadpool_parallelize_5d_tile_2d",
                           {range_i, range_j, range_k, range_l, range_m}, {1, 1, 1, tile_l, tile_m},
                           flags, poolshim::core::work_of(fn, context),
                           [=](size_t, const size_t* s, const size_t* n) {
                             fn(context, s[0], s[1], s[2], s[3], s[4], n[3], n[4]);
                           });
}

void pthreadpool_parallelize_6d(pthreadpool_t pool, pthreadpool_task_6d_t fn, void* context,
                                size_t range_i, size_t range_j, size_t range_k, size_t range_l,
                                size_t range_m, size_t range_n, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_6d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, range_m, range_n,
                      flags);
  grid::run_tiles<6, 0x0>(pool, "pthreadpool_parallelize_6d",
                          {range_i, range_j, range_k, range_l, range_m, range_n},
                          {1, 1, 1, 1, 1, 1}, flags, poolshim::core::work_of(fn, context),
                          [=](size_t, const size_t* s, const size_t*) {
                            fn(context, s[0], s[1], s[2], s[3], s[4], s[5]);
                          });
}

void pthreadpool_parallelize_6d_tile_1d(pthreadpool_t pool, pthreadpool_task_6d_tile_1d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t range_k, size_t range_l, size_t range_m,
                                        size_t range_n, size_t tile_n, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_6d_tile_1d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, range_m, range_n,
                      tile_n, flags);
  grid::run_tiles<6, 0x20>(pool, "pthreadpool_parallelize_6d_tile_1d",
                           {range_i, range_j, range_k, range_l, range_m, range_n},
                           {1, 1, 1, 1, 1, tile_n}, flags, poolshim::core::work_of(fn, context),
                           [=](size_t, const size_t* s, const size_t* n) {
                             fn(context, s[0], s[1], s[2], s[3], s[4], s[5], n[5]);
                           });
}

void pthreadpool_parallelize_6d_tile_2d(pthreadpool_t pool, pthreadpool_task_6d_tile_2d_t fn,
                                        void* context, size_t range_i, size_t range_j,
                                        size_t range_k, size_t range_l, size_t range_m,
                                        size_t range_n, size_t tile_m, size_t tile_n,
                                        uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_6d_tile_2d>())
    return library_fn(pool, fn, context, range_i, range_j, range_k, range_l, range_m, range_n,
                      tile_m, tile_n, flags);
  grid::run_tiles<6, 0x30>(
      pool, "pthreadpool_parallelize_6d_tile_2d",
      {range_i, range_j, range_k, range_l, range_m, range_n}, {1, 1, 1, 1, tile_m, tile_n}, flags,
      poolshim::core::work_of(fn, context), [=](size_t, const size_t* s, const size_t* n) {
        fn(context, s[0], s[1], s[2], s[3], s[4], s[5], n[4], n[5]);
      });
}

}  // extern "C"
