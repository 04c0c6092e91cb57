// POOLSHIM_DISABLE=pthreadpool: every pthreadpool_* call is forwarded untouched to Debian's
// libpthreadpool.so.0, opened privately (dlopen RTLD_LOCAL; docs/interposition.md). Debian's 2021
// engine has 30 of the 58 functions; calls to the others run serially on the caller (logged once
// per function at info).
#pragma once

#include "abi/pthreadpool_api.h"

namespace poolshim::abi::ptp::passthrough {

// The 30 functions of Debian's libpthreadpool0 (0.0~git20210507).
enum class Fn : unsigned {
  create, destroy, get_threads_count,
  parallelize_1d, parallelize_1d_with_uarch, parallelize_1d_tile_1d,
  parallelize_2d, parallelize_2d_tile_1d, parallelize_2d_tile_2d, parallelize_2d_tile_2d_with_uarch,
  parallelize_3d, parallelize_3d_tile_1d, parallelize_3d_tile_2d, parallelize_3d_tile_2d_with_uarch,
  parallelize_4d, parallelize_4d_tile_1d, parallelize_4d_tile_2d, parallelize_4d_tile_2d_with_uarch,
  parallelize_5d, parallelize_5d_tile_1d, parallelize_5d_tile_2d,
  parallelize_6d, parallelize_6d_tile_1d, parallelize_6d_tile_2d,
  compute_1d, compute_1d_tiled, compute_2d, compute_2d_tiled, compute_3d_tiled, compute_4d_tiled,
  count
};

// True when the pthreadpool surface is disabled (read once from config::options()).
bool active();

// Debian's definition of f, or nullptr when the library or the symbol is missing.
void* symbol(Fn f);

template <typename F>
inline F get(Fn f) {
  return reinterpret_cast<F>(symbol(f));
}

// For a function Debian lacks: logs once (info) what passthrough mode does instead, e.g.
// note_missing("pthreadpool_parallelize_2d_with_thread", "running it serially").
void note_missing(const char* name, const char* fallback);

}  // namespace poolshim::abi::ptp::passthrough

// In an exported function: when the surface is disabled, forward to Debian's `fn` and return its
// result; if Debian lacks it, fall through with the pool argument cleared (serial).
#define POOLSHIM_PTP_FORWARD(fn, ...)                                                         \
  do {                                                                                        \
    if (::poolshim::abi::ptp::passthrough::active()) {                                        \
      auto f_ = ::poolshim::abi::ptp::passthrough::get<decltype(&pthreadpool_##fn)>(         \
          ::poolshim::abi::ptp::passthrough::Fn::fn);                                         \
      if (f_ != nullptr) return f_(__VA_ARGS__);                                              \
    }                                                                                         \
  } while (0)

// For the functions Debian lacks: in passthrough mode, clear `pool` so the call runs serially.
#define POOLSHIM_PTP_SERIAL_IF_PASSTHROUGH(name, pool)                                        \
  do {                                                                                        \
    if (::poolshim::abi::ptp::passthrough::active()) {                                        \
      ::poolshim::abi::ptp::passthrough::note_missing(name, "running it serially");                                   \
      pool = nullptr;                                                                         \
    }                                                                                         \
  } while (0)
