// The grid walk of shim/abi/pthreadpool/grid.h on its own, with runs of every start and length
// (the pool hands runs [begin, end) of consecutive items to one thread; which runs it hands out
// depends on the scheduler, so they are enumerated here rather than hoped for):
//  - Cursor: seek(begin) then next() up to end, and walk(begin, end), give exactly the header's
//    serial snippet's tiles begin..end-1, for many begins and ends, over 1..6 dimensions and
//    every tiled/untiled mix; also with ranges and tiles near SIZE_MAX;
//  - dynamic_run: any partition of the tiles into runs covers every tile exactly once, with
//    calls that start on a tile and span whole tiles unless they reach the end of the range.
#include <gtest/gtest.h>

#include "abi/pthreadpool/grid.h"
#include "pthreadpool_testing.h"

using namespace ptp_test;
namespace grid = poolshim::abi::ptp::grid;

namespace {

size_t ceil_div(size_t a, size_t b) { return a / b + (a % b != 0); }

std::vector<Shape> shapes_for(size_t dims, unsigned mask, uint32_t seed, bool huge) {
  std::vector<Shape> out = random_shapes(dims, 20, seed);
  std::mt19937 rng(seed);
  for (Shape& s : out) {
    for (size_t d = 0; d < dims; ++d) {
      if (!(mask & (1u << d))) {
        s.t[d] = 1;
      } else if (huge && rng() % 2) {
        const size_t r[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2 + 1, size_t{1} << 63};
        const size_t t[] = {SIZE_MAX / 2, SIZE_MAX / 3, (size_t{1} << 62) + 1, SIZE_MAX};
        s.r[d] = r[rng() % 4];
        s.t[d] = t[rng() % 4];
      }
      if (s.t[d] == 0) s.t[d] = 1;
    }
  }
  return out;
}

template <size_t D>
grid::Shape<D> make(const Shape& s) {
  size_t r[D], t[D];
  for (size_t d = 0; d < D; ++d) r[d] = s.r[d], t[d] = s.t[d];
  grid::Shape<D> g;
  EXPECT_TRUE(grid::make_shape(g, r, t));
  return g;
}

template <size_t D, unsigned kMask>
void check_cursor(uint32_t seed, bool huge) {
  for (const Shape& s : shapes_for(D, kMask, seed, huge)) {
    SCOPED_TRACE("D=" + std::to_string(D) + " mask=" + std::to_string(kMask) + " " + s.str());
    std::vector<Call> ref;
    serial_tiles(s, D, [&](const size_t* start, const size_t* count) {
      Call c(start, start + D);
      c.insert(c.end(), count, count + D);
      ref.push_back(c);
    });
    grid::Shape<D> g = make<D>(s);
    ASSERT_EQ(g.total, ref.size());
    const size_t total = ref.size();
    std::vector<size_t> flat;
    for (const Call& c : ref) flat.insert(flat.end(), c.begin(), c.end());
    std::mt19937 rng(seed);
    for (size_t k = 0; k < std::min<size_t>(total, 40); ++k) {
      const size_t begin = total <= 40 ? k : rng() % total;
      for (size_t end : {begin + 1, begin + 3, begin + 50, total}) {
        if (end > total) end = total;
        grid::Cursor<D, kMask> cur;
        cur.seek(g, begin);
        for (size_t i = begin;;) {
          bool same = true;
          for (size_t d = 0; d < D; ++d)
            same &= cur.start[d] == ref[i][d] && cur.count[d] == ref[i][D + d];
          if (!same) {
            Call got(cur.start, cur.start + D);
            got.insert(got.end(), cur.count, cur.count + D);
            ASSERT_EQ(got, ref[i]) << "run [" << begin << ", " << end << ") item " << i;
          }
          if (++i == end) break;
          cur.next(g);
        }
        // walk(): what a run of the pool does (one step of the walk per item it takes).
        std::vector<size_t> got;
        got.reserve((end - begin) * 2 * D);
        poolshim::core::Run run(begin, end);
        grid::walk<D, kMask>(
            g,
            [&](size_t, const size_t* st, const size_t* ct) {
              got.insert(got.end(), st, st + D);
              got.insert(got.end(), ct, ct + D);
            },
            0, begin, run);
        ASSERT_EQ(got.size(), (end - begin) * 2 * D) << "walk [" << begin << ", " << end << ")";
        ASSERT_TRUE(std::equal(got.begin(), got.end(), flat.begin() + begin * 2 * D))
            << "walk [" << begin << ", " << end << ")";
      }
    }
  }
}

TEST(GridCursor, EveryRunWalksTheSnippetOrder) {
  for (bool huge : {false, true}) {
    check_cursor<1, 0>(1, huge);
    check_cursor<1, 1>(2, huge);
    check_cursor<2, 0>(3, huge);
    check_cursor<2, 2>(4, huge);
    check_cursor<2, 3>(5, huge);
    check_cursor<3, 0>(6, huge);
    check_cursor<3, 4>(7, huge);
    check_cursor<3, 6>(8, huge);
    check_cursor<3, 7>(9, huge);
    check_cursor<4, 0>(10, huge);
    check_cursor<4, 8>(11, huge);
    check_cursor<4, 12>(12, huge);
    check_cursor<4, 15>(13, huge);
    check_cursor<5, 0>(14, huge);
    check_cursor<5, 16>(15, huge);
    check_cursor<5, 24>(16, huge);
    check_cursor<6, 0>(17, huge);
    check_cursor<6, 32>(18, huge);
    check_cursor<6, 48>(19, huge);
  }
}

// The dynamic contract at tile granularity; "" when met.
template <size_t D, size_t K>
std::string check_calls(const grid::Shape<D>& g, const std::vector<Call>& calls) {
  std::vector<int> seen(g.total, 0);
  for (const Call& call : calls) {
    size_t first[D], n[D];
    for (size_t d = 0; d < D; ++d) {
      const size_t start = call[d], count = call[D + d];
      if (count == 0 || start >= g.range[d] || count > g.range[d] - start)
        return "outside the range";
      if (start % g.tile[d] != 0) return "start not on a tile";
      first[d] = start / g.tile[d];
      n[d] = ceil_div(count, g.tile[d]);
      if (d < D - K && count != 1) return "an outer dimension spans several indices";
      if (count != grid::span_count(start, n[d], g.tile[d], g.range[d])) return "not whole tiles";
    }
    std::function<void(size_t, size_t)> mark = [&](size_t d, size_t flat) {
      if (d == D) return void(++seen[flat]);
      for (size_t x = first[d]; x < first[d] + n[d]; ++x) mark(d + 1, flat * g.tiles[d] + x);
    };
    mark(0, 0);
  }
  for (size_t i = 0; i < g.total; ++i)
    if (seen[i] != 1)
      return "tile " + std::to_string(i) + " covered " + std::to_string(seen[i]) + " times";
  return "";
}

template <size_t D, size_t K>
void check_dynamic(uint32_t seed, bool huge) {
  constexpr unsigned kMask = K == 1 ? (1u << (D - 1)) : (3u << (D - 2));
  std::mt19937 rng(seed);
  for (const Shape& s : shapes_for(D, kMask, seed, huge)) {
    grid::Shape<D> g = make<D>(s);
    if (g.total == 0) continue;
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<Call> calls;
      auto body = [&](size_t, const size_t* start, const size_t* count) {
        Call c(start, start + D);
        c.insert(c.end(), count, count + D);
        calls.push_back(c);
      };
      std::string runs;
      for (size_t b = 0; b < g.total;) {  // a random partition of the tiles into runs
        size_t e = b + 1 + rng() % std::min<size_t>(g.total - b, 40);
        poolshim::core::Run run(b, e);
        grid::dynamic_run<D, K>(g, body, 0, b, run);
        runs += "[" + std::to_string(b) + "," + std::to_string(e) + ")";
        b = e;
      }
      ASSERT_EQ((check_calls<D, K>(g, calls)), "")
          << "D=" << D << " K=" << K << " " << s.str() << " runs " << runs;
    }
  }
}

TEST(GridDynamic, EveryPartitionIntoRunsCoversEachTileOnce) {
  for (bool huge : {false, true}) {
    check_dynamic<1, 1>(21, huge);
    check_dynamic<2, 1>(22, huge);
    check_dynamic<2, 2>(23, huge);
    check_dynamic<3, 1>(24, huge);
    check_dynamic<3, 2>(25, huge);
    check_dynamic<4, 2>(26, huge);
  }
}

TEST(GridDynamic, SpanCountNeverWraps) {
  EXPECT_EQ(grid::span_count(0, 3, SIZE_MAX / 2, SIZE_MAX), SIZE_MAX);
  EXPECT_EQ(grid::span_count(SIZE_MAX / 2, 2, SIZE_MAX / 2, SIZE_MAX), SIZE_MAX - SIZE_MAX / 2);
  EXPECT_EQ(grid::span_count(4, 2, 3, 100), 6u);
  EXPECT_EQ(grid::span_count(96, 2, 3, 100), 4u);
}

}  // namespace
