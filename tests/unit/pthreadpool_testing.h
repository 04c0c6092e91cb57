// Helpers shared by the pthreadpool unit tests: a call recorder usable as any task type, Debian's
// libpthreadpool.so.0 opened privately (the reference for the 30 functions it has), the
// header's serial snippets written as plain nested loops (the reference for the others), and
// random shapes.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "abi/pthreadpool/api.h"

namespace ptp_test {

using Call = std::vector<size_t>;

// Records every call of a task: its arguments after the context, as size_t.
struct Recorder {
  std::mutex mutex;
  std::vector<Call> calls;
  // Runs first in every call of the task, on the task's thread, outside the lock (a test may
  // block in it).
  std::function<void(const Call&)> on_call;
  void add(Call c) {
    if (on_call) on_call(c);
    std::lock_guard<std::mutex> lock(mutex);
    calls.push_back(std::move(c));
  }
  std::vector<Call> sorted() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<Call> s = calls;
    std::sort(s.begin(), s.end());
    return s;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    calls.clear();
  }
};

// &record<A...> has exactly the type of a pthreadpool task taking (void*, A...).
template <typename... A>
void record(void* ctx, A... args) {
  static_cast<Recorder*>(ctx)->add(Call{static_cast<size_t>(args)...});
}

// Debian's engine, opened the way the shim opens it (RTLD_LOCAL: its symbols stay private).
inline void* debian_handle() {
  static void* h = dlopen("libpthreadpool.so.0", RTLD_NOW | RTLD_LOCAL);
  return h;
}
template <typename F>
F debian(const char* name) {
  void* h = debian_handle();
  return h ? reinterpret_cast<F>(dlsym(h, name)) : nullptr;
}
#define PTP_DEBIAN(fn) ::ptp_test::debian<decltype(&pthreadpool_##fn)>("pthreadpool_" #fn)

// A grid shape for up to 6 dimensions; unused dimensions have range 1.
struct Shape {
  size_t r[6] = {1, 1, 1, 1, 1, 1};
  size_t t[6] = {1, 1, 1, 1, 1, 1};
  uint32_t default_uarch = 0;
  uint32_t max_uarch = 0;
  std::string str() const {
    std::string s = "r=";
    for (size_t v : r) s += std::to_string(v) + ",";
    s += " t=";
    for (size_t v : t) s += std::to_string(v) + ",";
    s += " uarch=" + std::to_string(default_uarch) + "/" + std::to_string(max_uarch);
    return s;
  }
};

// Random shapes over `dims` dimensions: ranges include 0 and 1, tiles that do not divide the
// range, tiles larger than the range; the total number of cells stays small.
inline std::vector<Shape> random_shapes(size_t dims, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Shape> out;
  auto pick = [&](size_t lo, size_t hi) {
    return std::uniform_int_distribution<size_t>(lo, hi)(rng);
  };
  const size_t budget_cells = 4096;
  for (size_t n = 0; n < count; ++n) {
    Shape s;
    size_t cells = 1;
    for (size_t d = 0; d < dims; ++d) {
      size_t kind = pick(0, 9);
      size_t r = kind == 0 ? 0 : kind == 1 ? 1 : pick(2, dims <= 2 ? 40 : 9);
      if (cells * (r == 0 ? 1 : r) > budget_cells) r = 1;
      cells *= r == 0 ? 1 : r;
      s.r[d] = r;
      size_t tk = pick(0, 3);
      s.t[d] = tk == 0 ? 1 : tk == 1 ? r + pick(1, 3) : pick(2, 7);
    }
    s.default_uarch = static_cast<uint32_t>(pick(0, 3));
    s.max_uarch = static_cast<uint32_t>(pick(0, 3));  // sometimes below the default
    out.push_back(s);
  }
  return out;
}

// The header's serial snippet for a fully tiled D-dimensional grid:
//   for (x0 = 0; x0 < r0; x0 += t0) ... body(start, count) with count = min(r - x, t).
// Written so that x += t cannot wrap near SIZE_MAX (the snippet's literal loop would: with
// r = SIZE_MAX and t = SIZE_MAX / 2 it never ends): the loop stops after the tile that reaches
// the end, which is what the snippet means.
inline void serial_tiles(const Shape& s, size_t dims,
                         const std::function<void(const size_t*, const size_t*)>& body) {
  size_t start[6] = {0}, count[6] = {0};
  std::function<void(size_t)> nest = [&](size_t d) {
    if (d == dims) return body(start, count);
    for (size_t x = 0; x < s.r[d]; x += s.t[d]) {
      start[d] = x;
      count[d] = std::min(s.r[d] - x, s.t[d]);
      nest(d + 1);
      if (s.r[d] - x <= s.t[d]) break;  // the last tile: x + t would reach or pass r (or wrap)
    }
  };
  nest(0);
}

// One pthreadpool function under test against the header's serial snippet or its dynamic
// contract (pthreadpool_extra_test.cpp, pthreadpool_overflow_test.cpp).
using Invoke = void (*)(pthreadpool_t pool, const Shape& s, Recorder* r);

struct HeaderCase {
  const char* name;
  size_t dims;
  unsigned tiled;  // bit d: dimension d is tiled (its count is passed)
  size_t dynamic;  // 0 = static; else the last `dynamic` dimensions are handed out in runs
  int uarch_pos;   // position of uarch_index among the task arguments, -1 if none
  int thread_pos;  // position of thread_index, -1 if none
  Invoke invoke;
};

#define PTP_CASE(fn, dims, tiled, dyn, upos, tpos, ...)                               \
  ::ptp_test::HeaderCase {                                                            \
    "pthreadpool_" #fn, dims, tiled, dyn, upos, tpos,                                 \
        [](pthreadpool_t pool, const ::ptp_test::Shape& s, ::ptp_test::Recorder* r) { \
          pthreadpool_##fn(pool, __VA_ARGS__);                                        \
        }                                                                             \
  }

// Shorthand for the case tables' arguments: the task's argument types, and a Shape s's ranges,
// tiles and uarch pair.
using S = size_t;
using U = uint32_t;
#define R(d) s.r[d]
#define T(d) s.t[d]
#define UA s.default_uarch, s.max_uarch

// The recorded calls with their uarch and thread indices checked and taken out: uarch_index is
// default_uarch_index, thread_index is below the thread count `limit`.
inline std::vector<Call> checked_calls(const HeaderCase& c, const Shape& s, const Recorder& rec,
                                       size_t limit) {
  std::vector<Call> rest;
  for (const Call& call : rec.calls) {
    Call own;
    for (size_t i = 0; i < call.size(); ++i) {
      if (static_cast<int>(i) == c.uarch_pos)
        EXPECT_EQ(call[i], s.default_uarch);
      else if (static_cast<int>(i) == c.thread_pos)
        EXPECT_LT(call[i], limit);
      else
        own.push_back(call[i]);
    }
    rest.push_back(own);
  }
  return rest;
}

// A static variant: the same calls as the header's serial snippet (fully tiled grid, counts
// passed for the tiled dimensions), in the snippet's order when the call was serial.
inline void expect_serial_reference(const HeaderCase& c, const Shape& s, std::vector<Call> rest,
                                    bool serial) {
  std::vector<Call> ref;
  serial_tiles(s, c.dims, [&](const size_t* start, const size_t* count) {
    Call call(start, start + c.dims);
    for (size_t d = 0; d < c.dims; ++d)
      if (c.tiled & (1u << d)) call.push_back(count[d]);
    ref.push_back(call);
  });
  if (!serial) {
    std::sort(rest.begin(), rest.end());
    std::sort(ref.begin(), ref.end());
  }
  EXPECT_EQ(rest, ref);
}

// The threads x shapes loop of the pthreadpool suites: case c on every shape, on a NULL pool
// (threads 0) and on a handle of each other thread count, while another client's handle keeps the
// one pool at the whole budget (so a handle's limit is a limit within a larger pool). Every call
// is checked (checked_calls); a static case must give the serial reference's calls, a dynamic one
// goes to check_dynamic(threads, shape, calls), the suite's own check.
template <typename CheckDynamic>
void check_threads_and_shapes(const HeaderCase& c, const std::vector<Shape>& shapes,
                              std::initializer_list<size_t> thread_counts,
                              CheckDynamic check_dynamic) {
  pthreadpool_t wide = pthreadpool_create(0);
  for (size_t threads : thread_counts) {
    pthreadpool_t pool = threads ? pthreadpool_create(threads) : nullptr;
    const size_t limit = pthreadpool_get_threads_count(pool);
    EXPECT_EQ(limit, threads ? threads : 1);
    for (const Shape& s : shapes) {
      SCOPED_TRACE(std::string(c.name) + " threads=" + std::to_string(threads) + " " + s.str());
      Recorder rec;
      c.invoke(pool, s, &rec);
      std::vector<Call> rest = checked_calls(c, s, rec, limit);
      if (c.dynamic == 0) {
        expect_serial_reference(c, s, rest, threads <= 1);
      } else {
        check_dynamic(threads, s, rest);
      }
    }
    if (pool) pthreadpool_destroy(pool);
  }
  pthreadpool_destroy(wide);
}

// For INSTANTIATE_TEST_SUITE_P: a case's name without the "pthreadpool_" prefix.
inline std::string case_name(const ::testing::TestParamInfo<HeaderCase>& info) {
  return std::string(info.param.name + sizeof("pthreadpool_") - 1);
}
inline void PrintTo(const HeaderCase& c, std::ostream* os) { *os << c.name; }

// Sets an environment variable before main() (and so before the shim reads its options).
struct EnvAtLoad {
  EnvAtLoad(const char* name, const char* value) { setenv(name, value, 1); }
};

}  // namespace ptp_test
