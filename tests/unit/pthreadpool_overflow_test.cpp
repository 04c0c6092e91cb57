// Index and tile arithmetic near SIZE_MAX (issue 9, point 12), for every parallelize_* and
// compute_* function, on the NULL pool (the serial path), on a one-thread handle and on pools of
// 2 and 4 threads:
//  - tiled dimensions get ranges up to SIZE_MAX with huge tiles (so each has 1..4 tiles); the
//    untiled ones stay small, so every call is a few dozen task calls;
//  - static variants: the same calls, with identical arguments, as the header's serial snippet
//    (pthreadpool_testing.h, written so that it cannot wrap itself); in the snippet's order when
//    the call is serial;
//  - dynamic variants: every call inside the range, starts multiples of the tile, counts whole
//    tiles unless they reach the end of the range, every tile covered exactly once; serially one
//    call per row (the minimal number);
//  - thread_index below the handle's thread count, uarch_index = default_uarch_index.
// The regression of issue 9: pthreadpool_parallelize_1d_tile_1d_dynamic(pool, f, ctx, SIZE_MAX,
// SIZE_MAX / 2, 0) handed a last chunk far past the range, and with a NULL pool skipped half of it.
#include <gtest/gtest.h>

#include <map>

#include "pthreadpool_cases.h"
#include "pthreadpool_testing.h"

using namespace ptp_test;

namespace {

EnvAtLoad g_env("POOLSHIM_NUM_THREADS", "4");

constexpr size_t kMax = SIZE_MAX;

// Ranges and tiles near SIZE_MAX: every (range, tile) pair below gives 1 to 4 tiles.
const size_t kHugeRanges[] = {
    kMax, kMax - 1, kMax - 2, kMax / 2, kMax / 2 + 1, size_t{1} << 63, (size_t{1} << 63) + 5};
const size_t kHugeTiles[] = {
    kMax, kMax - 1, kMax / 2, kMax / 2 + 1, kMax / 3, (size_t{1} << 62) + 1, size_t{1} << 63};

std::vector<Shape> huge_shapes(const HeaderCase& c, size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::vector<Shape> out;
  for (size_t n = 0; n < count; ++n) {
    Shape s;
    for (size_t d = 0; d < c.dims; ++d) {
      if (c.tiled & (1u << d)) {
        s.r[d] = kHugeRanges[pick(std::size(kHugeRanges))];
        s.t[d] = kHugeTiles[pick(std::size(kHugeTiles))];
        if (pick(6) == 0) s.r[d] = 1 + pick(5);  // now and then a small range with a huge tile
      } else {
        s.r[d] = 1 + pick(3);
        s.t[d] = 1;
      }
    }
    s.default_uarch = static_cast<uint32_t>(pick(4));
    s.max_uarch = static_cast<uint32_t>(pick(4));
    out.push_back(s);
  }
  return out;
}

size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

// The dynamic contract at tile granularity (cells cannot be enumerated near SIZE_MAX); "" when
// met. A call is [start, start + count) per dimension; on a dynamic dimension it must cover whole
// tiles, the last one clipped to the range: count == min(n * tile, range - start).
std::string check_dynamic(const HeaderCase& c, const Shape& s, const std::vector<Call>& calls) {
  size_t tiles[6], total = 1;
  for (size_t d = 0; d < c.dims; ++d) {
    tiles[d] = ceil_div(s.r[d], s.t[d]);
    total *= tiles[d];
  }
  std::vector<int> seen(total, 0);
  for (const Call& call : calls) {
    size_t first[6], n[6];
    size_t k = c.dims;
    for (size_t d = 0; d < c.dims; ++d) {
      const size_t start = call[d];
      const bool dyn = d >= c.dims - c.dynamic;
      const size_t count = dyn ? call[k++] : 1;
      if (count == 0 || start >= s.r[d] || count > s.r[d] - start) return "call outside the range";
      if (start % s.t[d] != 0) return "start not a multiple of the tile";
      first[d] = start / s.t[d];
      n[d] = ceil_div(count, s.t[d]);
      size_t whole;
      bool wraps = __builtin_mul_overflow(n[d], s.t[d], &whole);
      size_t expect = (wraps || whole > s.r[d] - start) ? s.r[d] - start : whole;
      if (count != expect) return "count not whole tiles before the end of the range";
    }
    std::function<void(size_t, size_t)> mark = [&](size_t d, size_t flat) {
      if (d == c.dims) return void(++seen[flat]);
      for (size_t x = first[d]; x < first[d] + n[d]; ++x) mark(d + 1, flat * tiles[d] + x);
    };
    mark(0, 0);
  }
  for (size_t i = 0; i < total; ++i)
    if (seen[i] != 1)
      return "tile " + std::to_string(i) + " covered " + std::to_string(seen[i]) + " times";
  return "";
}

// Serially, one call per row: as many calls as rows (the outer, undynamic dimensions times the
// rows of the first dynamic dimension when the last one has more than one tile).
size_t minimal_serial_calls(const HeaderCase& c, const Shape& s) {
  size_t outer = 1;
  for (size_t d = 0; d + c.dynamic < c.dims; ++d) outer *= s.r[d];
  if (c.dynamic == 2 && ceil_div(s.r[c.dims - 1], s.t[c.dims - 1]) > 1)
    outer *= ceil_div(s.r[c.dims - 2], s.t[c.dims - 2]);
  return outer;
}

class Overflow : public ::testing::TestWithParam<HeaderCase> {};

TEST_P(Overflow, MatchesTheSerialReferenceNearSizeMax) {
  const HeaderCase& c = GetParam();
  uint32_t seed = 11;
  for (const char* p = c.name; *p; ++p) seed = seed * 131 + static_cast<uint8_t>(*p);
  const auto shapes = huge_shapes(c, 12, seed);

  check_threads_and_shapes(c, shapes, {0, 1, 2, 4},
                           [&](size_t threads, const Shape& s, const std::vector<Call>& calls) {
                             EXPECT_EQ(check_dynamic(c, s, calls), "");
                             if (threads <= 1) EXPECT_EQ(calls.size(), minimal_serial_calls(c, s));
                           });
}

INSTANTIATE_TEST_SUITE_P(AllShapes, Overflow, ::testing::ValuesIn(kAllCases), case_name);

// The case of issue 9, literally: the range is [0, SIZE_MAX), 3 tiles (SIZE_MAX is odd).
TEST(OverflowRegression, OneDimDynamicHalfRangeTile) {
  Recorder r;
  pthreadpool_parallelize_1d_tile_1d_dynamic(nullptr, &record<S, S>, &r, kMax, kMax / 2, 0);
  EXPECT_EQ(r.calls, (std::vector<Call>{{0, kMax}}));  // serial: the whole range in one call

  for (size_t threads : {size_t{1}, size_t{2}, size_t{4}}) {
    pthreadpool_t pool = pthreadpool_create(threads);
    r.clear();
    pthreadpool_parallelize_1d_tile_1d_dynamic(pool, &record<S, S>, &r, kMax, kMax / 2, kCaseFlags);
    std::vector<Call> calls = r.sorted();
    size_t covered = 0;  // the calls tile [0, SIZE_MAX) end to end
    for (const Call& call : calls) {
      ASSERT_EQ(call[0], covered) << threads;
      ASSERT_LE(call[1], kMax - call[0]) << "a call past the end of the range, threads=" << threads;
      covered += call[1];
    }
    EXPECT_EQ(covered, kMax) << threads;
    pthreadpool_destroy(pool);
  }
}

// An untiled grid whose cell count does not fit in size_t cannot be run: nothing is called (one
// warning line), on every path, instead of a wrapped product running a wrong grid.
TEST(OverflowRegression, TooManyCellsRunNothing) {
  pthreadpool_t pool = pthreadpool_create(2);
  for (pthreadpool_t p : {static_cast<pthreadpool_t>(nullptr), pool}) {
    Recorder r;
    pthreadpool_parallelize_2d(p, &record<S, S>, &r, size_t{1} << 33, size_t{1} << 31, kCaseFlags);
    pthreadpool_parallelize_3d_tile_2d(p, &record<S, S, S, S, S>, &r, size_t{1} << 40, 1 << 20,
                                       1 << 20, 1, 1, kCaseFlags);
    pthreadpool_parallelize_2d_tile_1d_dynamic(p, &record<S, S, S>, &r, kMax, kMax, 1, kCaseFlags);
    EXPECT_TRUE(r.calls.empty());
  }
  pthreadpool_destroy(pool);
}

}  // namespace
