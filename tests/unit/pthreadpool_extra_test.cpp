// The 24 parallelize functions Debian's 2021 engine lacks, against the header:
//  - the static *_with_thread / *_with_uarch variants against the header's serial snippet
//    (plain nested loops in pthreadpool_testing.h): same calls, identical arguments;
//  - the *_dynamic variants against the header's contract: every cell covered exactly once,
//    starts multiples of the tile, counts multiples of the tile unless they reach the end;
//  - thread_index below pthreadpool_get_threads_count(pool), uarch_index = default_uarch_index.
#include <gtest/gtest.h>

#include "pthreadpool_testing.h"

using namespace ptp_test;

namespace {

EnvAtLoad g_env("POOLSHIM_NUM_THREADS", "4");

// The machine has 2 CPUs and this test keeps two engines of up to 4 threads alive (ours and
// Debian's reference): without YIELD_WORKERS, each engine's idle workers spin for a while after
// every call and starve the other's, which only makes the test slow.
constexpr uint32_t kFlags = PTHREADPOOL_FLAG_YIELD_WORKERS;

const HeaderCase kCases[] = {
    // static
    PTP_CASE(parallelize_1d_with_thread, 1, 0, 0, -1, 0, &record<S, S>, r, R(0), kFlags),
    PTP_CASE(parallelize_2d_with_thread, 2, 0, 0, -1, 0, &record<S, S, S>, r, R(0), R(1), kFlags),
    PTP_CASE(parallelize_2d_tile_1d_with_uarch, 2, 2, 0, 0, -1, &record<U, S, S, S>, r, UA, R(0),
             R(1), T(1), kFlags),
    PTP_CASE(parallelize_2d_tile_1d_with_uarch_with_thread, 2, 2, 0, 0, 1, &record<U, S, S, S, S>,
             r, UA, R(0), R(1), T(1), kFlags),
    PTP_CASE(parallelize_3d_tile_1d_with_thread, 3, 4, 0, -1, 0, &record<S, S, S, S, S>, r, R(0),
             R(1), R(2), T(2), kFlags),
    PTP_CASE(parallelize_3d_tile_1d_with_uarch, 3, 4, 0, 0, -1, &record<U, S, S, S, S>, r, UA, R(0),
             R(1), R(2), T(2), kFlags),
    PTP_CASE(parallelize_3d_tile_1d_with_uarch_with_thread, 3, 4, 0, 0, 1,
             &record<U, S, S, S, S, S>, r, UA, R(0), R(1), R(2), T(2), kFlags),
    // dynamic
    PTP_CASE(parallelize_1d_tile_1d_dynamic, 1, 1, 1, -1, -1, &record<S, S>, r, R(0), T(0), kFlags),
    PTP_CASE(parallelize_1d_tile_1d_dynamic_with_thread, 1, 1, 1, -1, 0, &record<U, S, S>, r, R(0),
             T(0), kFlags),
    PTP_CASE(parallelize_1d_tile_1d_dynamic_with_uarch_with_thread, 1, 1, 1, 0, 1,
             &record<U, S, S, S>, r, UA, R(0), T(0), kFlags),
    PTP_CASE(parallelize_2d_tile_1d_dynamic, 2, 2, 1, -1, -1, &record<S, S, S>, r, R(0), R(1), T(1),
             kFlags),
    PTP_CASE(parallelize_2d_tile_1d_dynamic_with_thread, 2, 2, 1, -1, 0, &record<U, S, S, S>, r,
             R(0), R(1), T(1), kFlags),
    PTP_CASE(parallelize_2d_tile_1d_dynamic_with_uarch_with_thread, 2, 2, 1, 0, 1,
             &record<U, S, S, S, S>, r, UA, R(0), R(1), T(1), kFlags),
    PTP_CASE(parallelize_2d_tile_2d_dynamic, 2, 3, 2, -1, -1, &record<S, S, S, S>, r, R(0), R(1),
             T(0), T(1), kFlags),
    PTP_CASE(parallelize_2d_tile_2d_dynamic_with_uarch, 2, 3, 2, 0, -1, &record<U, S, S, S, S>, r,
             UA, R(0), R(1), T(0), T(1), kFlags),
    PTP_CASE(parallelize_2d_tile_2d_dynamic_with_thread, 2, 3, 2, -1, 0, &record<U, S, S, S, S>, r,
             R(0), R(1), T(0), T(1), kFlags),
    PTP_CASE(parallelize_3d_tile_1d_dynamic, 3, 4, 1, -1, -1, &record<S, S, S, S>, r, R(0), R(1),
             R(2), T(2), kFlags),
    PTP_CASE(parallelize_3d_tile_1d_dynamic_with_thread, 3, 4, 1, -1, 0, &record<U, S, S, S, S>, r,
             R(0), R(1), R(2), T(2), kFlags),
    PTP_CASE(parallelize_3d_tile_1d_dynamic_with_uarch_with_thread, 3, 4, 1, 0, 1,
             &record<U, S, S, S, S, S>, r, UA, R(0), R(1), R(2), T(2), kFlags),
    PTP_CASE(parallelize_3d_tile_2d_dynamic, 3, 6, 2, -1, -1, &record<S, S, S, S, S>, r, R(0), R(1),
             R(2), T(1), T(2), kFlags),
    PTP_CASE(parallelize_3d_tile_2d_dynamic_with_uarch, 3, 6, 2, 0, -1, &record<U, S, S, S, S, S>,
             r, UA, R(0), R(1), R(2), T(1), T(2), kFlags),
    PTP_CASE(parallelize_3d_tile_2d_dynamic_with_thread, 3, 6, 2, -1, 0, &record<U, S, S, S, S, S>,
             r, R(0), R(1), R(2), T(1), T(2), kFlags),
    PTP_CASE(parallelize_4d_tile_2d_dynamic, 4, 12, 2, -1, -1, &record<S, S, S, S, S, S>, r, R(0),
             R(1), R(2), R(3), T(2), T(3), kFlags),
    PTP_CASE(parallelize_4d_tile_2d_dynamic_with_uarch, 4, 12, 2, 0, -1,
             &record<U, S, S, S, S, S, S>, r, UA, R(0), R(1), R(2), R(3), T(2), T(3), kFlags),
};

// The dynamic contract; returns "" when met.
std::string check_dynamic(const HeaderCase& c, const Shape& s, const std::vector<Call>& calls) {
  size_t cells = 1;
  for (size_t d = 0; d < c.dims; ++d) cells *= s.r[d];
  std::vector<int> seen(cells, 0);
  for (const Call& call : calls) {
    size_t start[6], count[6];
    size_t k = c.dims;
    for (size_t d = 0; d < c.dims; ++d) {
      start[d] = call[d];
      count[d] = d >= c.dims - c.dynamic ? call[k++] : 1;
      bool dyn = d >= c.dims - c.dynamic;
      if (count[d] == 0 || start[d] + count[d] > s.r[d]) return "call outside the range";
      if (dyn && start[d] % s.t[d] != 0) return "start not a multiple of the tile";
      if (dyn && count[d] % s.t[d] != 0 && start[d] + count[d] != s.r[d])
        return "count not a multiple of the tile before the end";
    }
    // Mark every covered cell.
    std::function<void(size_t, size_t)> mark = [&](size_t d, size_t flat) {
      if (d == c.dims) return void(++seen[flat]);
      for (size_t x = start[d]; x < start[d] + count[d]; ++x) mark(d + 1, flat * s.r[d] + x);
    };
    mark(0, 0);
  }
  for (size_t i = 0; i < cells; ++i)
    if (seen[i] != 1)
      return "cell " + std::to_string(i) + " covered " + std::to_string(seen[i]) + " times";
  return "";
}

class Extra : public ::testing::TestWithParam<HeaderCase> {};

TEST_P(Extra, MatchesTheHeader) {
  const HeaderCase& c = GetParam();
  uint32_t seed = 7;
  for (const char* p = c.name; *p; ++p) seed = seed * 131 + static_cast<uint8_t>(*p);
  auto shapes = random_shapes(c.dims, 30, seed);
  for (Shape& s : shapes)
    for (size_t d = 0; d < 6; ++d)
      if (!(c.tiled & (1u << d))) s.t[d] = 1;

  // The pool stays at the whole budget (4), so limits 1..3 are limits within a larger pool.
  check_threads_and_shapes(c, shapes, {0, 1, 2, 3, 4},
                           [&](size_t, const Shape& s, const std::vector<Call>& calls) {
                             EXPECT_EQ(check_dynamic(c, s, calls), "");
                           });
}

INSTANTIATE_TEST_SUITE_P(NotInDebian, Extra, ::testing::ValuesIn(kCases), case_name);

// "The counts are chosen to minimize the number of calls": a serial call is one run per row.
TEST(Dynamic, SerialCallsAreMinimal) {
  Recorder r;
  pthreadpool_parallelize_1d_tile_1d_dynamic(nullptr, &record<S, S>, &r, 103, 4, 0);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0], (Call{0, 103}));

  r.clear();  // several tiles per row: one call per row, covering the whole row
  pthreadpool_parallelize_2d_tile_2d_dynamic(nullptr, &record<S, S, S, S>, &r, 10, 9, 3, 4, 0);
  ASSERT_EQ(r.calls.size(), 4u);
  EXPECT_EQ(r.calls[3], (Call{9, 0, 1, 9}));

  r.clear();  // one tile per row: the rows are grouped into one call
  pthreadpool_parallelize_2d_tile_2d_dynamic(nullptr, &record<S, S, S, S>, &r, 10, 3, 3, 4, 0);
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0], (Call{0, 0, 10, 3}));
}

// Upstream divides by the tile; poolshim treats a tile of 0 as 1 instead of crashing.
TEST(Tiles, ZeroTileDoesNotCrash) {
  Recorder r;
  pthreadpool_parallelize_1d_tile_1d(nullptr, &record<S, S>, &r, 3, 0, 0);
  EXPECT_EQ(r.calls, (std::vector<Call>{{0, 1}, {1, 1}, {2, 1}}));
  r.clear();
  pthreadpool_parallelize_2d_tile_2d_dynamic(nullptr, &record<S, S, S, S>, &r, 2, 2, 0, 0, 0);
  EXPECT_EQ(r.calls.size(), 2u);
}

}  // namespace
