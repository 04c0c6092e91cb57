// pthreadpool_parallelize_1d* (7 functions) on the one pool.
//
// Table (upstream signature -> what each item calls):
//   1d                                  function(context, i)
//   1d_with_thread                      function(context, thread_index, i)
//   1d_with_uarch                       function(context, uarch_index, i)
//   1d_tile_1d                          function(context, i, min(range - i, tile))
//   1d_tile_1d_dynamic                  function(context, i, count)
//   1d_tile_1d_dynamic_with_thread      function(context, (uint32_t)thread_index, i, count)
//   1d_tile_1d_dynamic_with_uarch_with_thread
//                                       function(context, uarch_index, thread_index, i, count)
//
// uarch_index: poolshim is built without cpuinfo, so, like Debian's engine, it passes
// default_uarch_index (the header: "the microarchitecture index to use when pthreadpool is
// configured without cpuinfo"; it may exceed max_uarch_index).
#include "abi/pthreadpool/api.h"
#include "abi/pthreadpool/grid.h"
#include "abi/pthreadpool/passthrough.h"

using namespace poolshim::abi::ptp;
namespace pass = poolshim::abi::ptp::passthrough;

namespace {

// The untiled 1-D variants get their own run functions: they are the hottest path (per-call
// overhead is benchmarked against raw pthreadpool) and need no index arithmetic.
template <typename F>
struct Plain {
  F fn;
  void* context;
  uint32_t uarch;
};

void run_1d(void* p, size_t, size_t begin, poolshim::core::Run& run) {
  auto* c = static_cast<Plain<pthreadpool_task_1d_t>*>(p);
  const auto fn = c->fn;
  void* const context = c->context;
  poolshim::core::Taker taker(run);
  for (size_t i = begin; taker.take(i); ++i) fn(context, i);
}
void run_1d_with_thread(void* p, size_t thread_index, size_t begin, poolshim::core::Run& run) {
  auto* c = static_cast<Plain<pthreadpool_task_1d_with_thread_t>*>(p);
  const auto fn = c->fn;
  void* const context = c->context;
  poolshim::core::Taker taker(run);
  for (size_t i = begin; taker.take(i); ++i) fn(context, thread_index, i);
}
void run_1d_with_uarch(void* p, size_t, size_t begin, poolshim::core::Run& run) {
  auto* c = static_cast<Plain<pthreadpool_task_1d_with_id_t>*>(p);
  const auto fn = c->fn;
  void* const context = c->context;
  const uint32_t uarch = c->uarch;
  poolshim::core::Taker taker(run);
  for (size_t i = begin; taker.take(i); ++i) fn(context, uarch, i);
}

}  // namespace

extern "C" {

void pthreadpool_parallelize_1d(pthreadpool_t pool, pthreadpool_task_1d_t fn, void* context,
                                size_t range, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_1d>())
    return library_fn(pool, fn, context, range, flags);
  Plain<pthreadpool_task_1d_t> c{fn, context, 0};
  run_ranges(resolve(pool, "pthreadpool_parallelize_1d"), range, run_1d, &c, flags,
             poolshim::core::work_of(fn, context));
}

void pthreadpool_parallelize_1d_with_thread(pthreadpool_t pool,
                                            pthreadpool_task_1d_with_thread_t fn, void* context,
                                            size_t range, uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_1d_with_thread");
  Plain<pthreadpool_task_1d_with_thread_t> c{fn, context, 0};
  run_ranges(resolve(pool, "pthreadpool_parallelize_1d_with_thread"), range, run_1d_with_thread, &c,
             flags, poolshim::core::work_of(fn, context));
}

void pthreadpool_parallelize_1d_with_uarch(pthreadpool_t pool, pthreadpool_task_1d_with_id_t fn,
                                           void* context, uint32_t default_uarch_index,
                                           uint32_t max_uarch_index, size_t range, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_1d_with_uarch>())
    return library_fn(pool, fn, context, default_uarch_index, max_uarch_index, range, flags);
  Plain<pthreadpool_task_1d_with_id_t> c{fn, context, default_uarch_index};
  run_ranges(resolve(pool, "pthreadpool_parallelize_1d_with_uarch"), range, run_1d_with_uarch, &c,
             flags, poolshim::core::work_of(fn, context));
}

void pthreadpool_parallelize_1d_tile_1d(pthreadpool_t pool, pthreadpool_task_1d_tile_1d_t fn,
                                        void* context, size_t range, size_t tile, uint32_t flags) {
  if (auto library_fn = pass::forward_target<pass::Fn::parallelize_1d_tile_1d>())
    return library_fn(pool, fn, context, range, tile, flags);
  grid::run_tiles<1, 0x1>(
      pool, "pthreadpool_parallelize_1d_tile_1d", {range}, {tile}, flags,
      poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t* n) { fn(context, s[0], n[0]); });
}

void pthreadpool_parallelize_1d_tile_1d_dynamic(pthreadpool_t pool,
                                                pthreadpool_task_1d_tile_1d_dynamic_t fn,
                                                void* context, size_t range, size_t tile,
                                                uint32_t flags) {
  pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_1d_tile_1d_dynamic");
  grid::run_dynamic<1, 1>(
      pool, "pthreadpool_parallelize_1d_tile_1d_dynamic", {range}, {tile}, flags,
      poolshim::core::work_of(fn, context),
      [=](size_t, const size_t* s, const size_t* n) { fn(context, s[0], n[0]); });
}

void pthreadpool_parallelize_1d_tile_1d_dynamic_with_thread(
    pthreadpool_t pool, pthreadpool_task_1d_tile_1d_dynamic_with_id_t fn, void* context,
    size_t range, size_t tile, uint32_t flags) {
  pool =
      pass::serial_if_passthrough(pool, "pthreadpool_parallelize_1d_tile_1d_dynamic_with_thread");
  grid::run_dynamic<1, 1>(pool, "pthreadpool_parallelize_1d_tile_1d_dynamic_with_thread", {range},
                          {tile}, flags, poolshim::core::work_of(fn, context),
                          [=](size_t t, const size_t* s, const size_t* n) {
                            fn(context, static_cast<uint32_t>(t), s[0], n[0]);
                          });
}

void pthreadpool_parallelize_1d_tile_1d_dynamic_with_uarch_with_thread(
    pthreadpool_t pool, pthreadpool_task_1d_tile_1d_dynamic_with_id_with_thread_t fn, void* context,
    uint32_t default_uarch_index, uint32_t max_uarch_index, size_t range, size_t tile,
    uint32_t flags) {
  pool = pass::serial_if_passthrough(
      pool, "pthreadpool_parallelize_1d_tile_1d_dynamic_with_uarch_with_thread");
  (void)max_uarch_index;
  grid::run_dynamic<1, 1>(pool, "pthreadpool_parallelize_1d_tile_1d_dynamic_with_uarch_with_thread",
                          {range}, {tile}, flags, poolshim::core::work_of(fn, context),
                          [=](size_t t, const size_t* s, const size_t* n) {
                            fn(context, default_uarch_index, t, s[0], n[0]);
                          });
}

}  // extern "C"
