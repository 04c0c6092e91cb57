// POOLSHIM_DISABLE=pthreadpool: every pthreadpool_* call is forwarded untouched to Debian's
// libpthreadpool.so.0, opened privately (dlopen RTLD_LOCAL; docs/interposition.md). Debian's 2021
// engine has 30 of the 58 functions; calls to the others run serially on the caller (logged once
// per function at info). The library is the passthrough target: in the exported functions its
// definition of a function is `library_fn`, and LibraryFn<f> is that definition's type.
#pragma once

#include <atomic>

#include "abi/pthreadpool/api.h"
#include "base/fork_hooks.h"

namespace poolshim::abi::ptp::passthrough {

// The 30 functions of Debian's libpthreadpool0 (0.0~git20210507), as X(name) for
// pthreadpool_<name>: the Fn enum, the names looked up and each one's type (LibraryFn<f>) come from
// this one list.
// A table laid out by hand (clang-format does not settle on one layout for it):
// clang-format off
#define POOLSHIM_PTP_LIBRARY_FUNCTIONS(X)                                                      \
  X(create) X(destroy) X(get_threads_count)                                                   \
  X(parallelize_1d) X(parallelize_1d_with_uarch) X(parallelize_1d_tile_1d)                    \
  X(parallelize_2d) X(parallelize_2d_tile_1d) X(parallelize_2d_tile_2d)                       \
  X(parallelize_2d_tile_2d_with_uarch)                                                        \
  X(parallelize_3d) X(parallelize_3d_tile_1d) X(parallelize_3d_tile_2d)                       \
  X(parallelize_3d_tile_2d_with_uarch)                                                        \
  X(parallelize_4d) X(parallelize_4d_tile_1d) X(parallelize_4d_tile_2d)                       \
  X(parallelize_4d_tile_2d_with_uarch)                                                        \
  X(parallelize_5d) X(parallelize_5d_tile_1d) X(parallelize_5d_tile_2d)                       \
  X(parallelize_6d) X(parallelize_6d_tile_1d) X(parallelize_6d_tile_2d)                       \
  X(compute_1d) X(compute_1d_tiled) X(compute_2d) X(compute_2d_tiled) X(compute_3d_tiled)     \
  X(compute_4d_tiled)
// clang-format on

enum class Fn : unsigned {
#define POOLSHIM_PTP_ENUM(name) name,
  POOLSHIM_PTP_LIBRARY_FUNCTIONS(POOLSHIM_PTP_ENUM)
#undef POOLSHIM_PTP_ENUM
      count
};

// LibraryFn<f>::type: the C function type of pthreadpool_<f> (ours and Debian's are the same ABI).
template <Fn f>
struct LibraryFn;
#define POOLSHIM_PTP_TYPE(name)                \
  template <>                                  \
  struct LibraryFn<Fn::name> {                 \
    using type = decltype(pthreadpool_##name); \
  };
POOLSHIM_PTP_LIBRARY_FUNCTIONS(POOLSHIM_PTP_TYPE)
#undef POOLSHIM_PTP_TYPE

// True when the pthreadpool surface is disabled (read once from config::options(), by
// decide_active(); inline after that: every pthreadpool call asks).
__attribute__((visibility("hidden"))) extern std::atomic<int> g_mode;
bool decide_active();
inline bool active() {
  const int mode = g_mode.load(std::memory_order_acquire);
  if (__builtin_expect(mode != 0, 1)) return mode == 2;
  return decide_active();
}

// Debian's definition of f, or nullptr when the library or the symbol is missing.
void* symbol(Fn f);

// Debian's definition of f, typed, or nullptr when the library or the symbol is missing.
template <Fn f>
inline typename LibraryFn<f>::type* definition() {
  return reinterpret_cast<typename LibraryFn<f>::type*>(symbol(f));
}

// In an exported function: Debian's definition of f when the surface is disabled and Debian has
// it; the function then returns what that gives for its own arguments. nullptr otherwise: the
// shim serves the call.
//
//   if (auto library_fn = pass::forward_target<pass::Fn::parallelize_1d>())
//     return library_fn(pool, fn, context, range, flags);
template <Fn f>
inline typename LibraryFn<f>::type* forward_target() {
  return active() ? definition<f>() : nullptr;
}

// For a function Debian lacks: logs once (info) what passthrough mode does instead, e.g.
// note_missing("pthreadpool_parallelize_2d_with_thread", "running it serially").
void note_missing(const char* name, const char* fallback);

// For the functions Debian lacks: the pool to run on. In passthrough mode nullptr, so the call
// runs serially on the caller (noted once per function), otherwise pool.
//
//   pool = pass::serial_if_passthrough(pool, "pthreadpool_parallelize_2d_with_thread");
inline pthreadpool_t serial_if_passthrough(pthreadpool_t pool, const char* name) {
  if (!active()) return pool;
  note_missing(name, "running it serially");
  return nullptr;
}

// fork (lifecycle/fork.cpp's table): the noted-functions table's lock.
POOLSHIM_FORK_HOOK void passthrough_atfork_prepare();
POOLSHIM_FORK_HOOK void passthrough_atfork_parent();
POOLSHIM_FORK_HOOK void passthrough_atfork_child();

}  // namespace poolshim::abi::ptp::passthrough
