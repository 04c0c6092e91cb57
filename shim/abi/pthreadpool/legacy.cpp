// The deprecated pthreadpool_compute_* API (6 functions; NNPACK and PyTorch's QNNPACK still call
// it). Upstream implements them with the parallelize_* functions; we go straight to the grid
// helpers rather than through our own exported symbols, which a definition in the executable
// could interpose.
//
//   compute_1d        = parallelize_1d                     function(argument, i)
//   compute_1d_tiled  = parallelize_1d_tile_1d             function(argument, i, tile)
//   compute_2d        = parallelize_2d                     function(argument, i, j)
//   compute_2d_tiled  = parallelize_2d_tile_2d             function(argument, i, j, ti, tj)
//   compute_3d_tiled  every dimension tiled                function(argument, i, j, k, ti, tj, tk)
//   compute_4d_tiled  every dimension tiled                function(argument, i..l, ti..tl)
#include "abi/pthreadpool/api.h"
#include "abi/pthreadpool/grid.h"
#include "abi/pthreadpool/passthrough.h"

using namespace poolshim::abi::ptp;
namespace pass = poolshim::abi::ptp::passthrough;

extern "C" {

void pthreadpool_compute_1d(pthreadpool_t pool, pthreadpool_function_1d_t fn, void* argument,
                            size_t range) {
  if (auto library_fn = pass::forward_target<pass::Fn::compute_1d>())
    return library_fn(pool, fn, argument, range);
  grid::run_tiles<1, 0x0>(pool, "pthreadpool_compute_1d", {range}, {1}, 0,
                          poolshim::core::work_of(fn, argument),
                          [=](size_t, const size_t* s, const size_t*) { fn(argument, s[0]); });
}

void pthreadpool_compute_1d_tiled(pthreadpool_t pool, pthreadpool_function_1d_tiled_t fn,
                                  void* argument, size_t range, size_t tile) {
  if (auto library_fn = pass::forward_target<pass::Fn::compute_1d_tiled>())
    return library_fn(pool, fn, argument, range, tile);
  grid::run_tiles<1, 0x1>(
      pool, "pthreadpool_compute_1d_tiled", {range}, {tile}, 0,
      poolshim::core::work_of(fn, argument),
      [=](size_t, const size_t* s, const size_t* n) { fn(argument, s[0], n[0]); });
}

void pthreadpool_compute_2d(pthreadpool_t pool, pthreadpool_function_2d_t fn, void* argument,
                            size_t range_i, size_t range_j) {
  if (auto library_fn = pass::forward_target<pass::Fn::compute_2d>())
    return library_fn(pool, fn, argument, range_i, range_j);
  grid::run_tiles<2, 0x0>(
      pool, "pthreadpool_compute_2d", {range_i, range_j}, {1, 1}, 0,
      poolshim::core::work_of(fn, argument),
      [=](size_t, const size_t* s, const size_t*) { fn(argument, s[0], s[1]); });
}

void pthreadpool_compute_2d_tiled(pthreadpool_t pool, pthreadpool_function_2d_tiled_t fn,
                                  void* argument, size_t range_i, size_t range_j, size_t tile_i,
                                  size_t tile_j) {
  if (auto library_fn = pass::forward_target<pass::Fn::compute_2d_tiled>())
    return library_fn(pool, fn, argument, range_i, range_j, tile_i, tile_j);
  grid::run_tiles<2, 0x3>(
      pool, "pthreadpool_compute_2d_tiled", {range_i, range_j}, {tile_i, tile_j}, 0,
      poolshim::core::work_of(fn, argument),
      [=](size_t, const size_t* s, const size_t* n) { fn(argument, s[0], s[1], n[0], n[1]); });
}

void pthreadpool_compute_3d_tiled(pthreadpool_t pool, pthreadpool_function_3d_tiled_t fn,
                                  void* argument, size_t range_i, size_t range_j, size_t range_k,
                                  size_t tile_i, size_t tile_j, size_t tile_k) {
  if (auto library_fn = pass::forward_target<pass::Fn::compute_3d_tiled>())
    return library_fn(pool, fn, argument, range_i, range_j, range_k, tile_i, tile_j, tile_k);
  grid::run_tiles<3, 0x7>(pool, "pthreadpool_compute_3d_tiled", {range_i, range_j, range_k},
                          {tile_i, tile_j, tile_k}, 0, poolshim::core::work_of(fn, argument),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(argument, s[0], s[1], s[2], n[0], n[1], n[2]);
                          });
}

void pthreadpool_compute_4d_tiled(pthreadpool_t pool, pthreadpool_function_4d_tiled_t fn,
                                  void* argument, size_t range_i, size_t range_j, size_t range_k,
                                  size_t range_l, size_t tile_i, size_t tile_j, size_t tile_k,
                                  size_t tile_l) {
  if (auto library_fn = pass::forward_target<pass::Fn::compute_4d_tiled>())
    return library_fn(pool, fn, argument, range_i, range_j, range_k, range_l, tile_i, tile_j,
                      tile_k, tile_l);
  grid::run_tiles<4, 0xf>(pool, "pthreadpool_compute_4d_tiled",
                          {range_i, range_j, range_k, range_l}, {tile_i, tile_j, tile_k, tile_l}, 0,
                          poolshim::core::work_of(fn, argument),
                          [=](size_t, const size_t* s, const size_t* n) {
                            fn(argument, s[0], s[1], s[2], s[3], n[0], n[1], n[2], n[3]);
                          });
}

}  // extern "C"
