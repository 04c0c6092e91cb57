// Differential test of the 30 pthreadpool functions that Debian's libpthreadpool.so.0 (2021)
// also has: the shim's implementation against Debian's, loaded privately, over random shapes
// (ranges 0 and 1, tiles that do not divide the range, tiles larger than the range) and thread
// limits. Same multiset of calls with identical arguments (so every item exactly once); in the
// serial cases (NULL pool, one thread) the same order too; uarch_index as Debian passes it.
#include <gtest/gtest.h>

#include "pthreadpool_testing.h"

using namespace ptp_test;

namespace {

// A budget above the machine's 2 CPUs, so thread limits 1..4 are real limits of one pool.
EnvAtLoad g_env("POOLSHIM_NUM_THREADS", "4");

using Invoke = void (*)(void* impl, pthreadpool_t pool, const Shape& s, Recorder* r);

struct DiffCase {
  const char* name;
  size_t dims;
  bool uarch;  // the first task argument is the uarch index
  Invoke invoke;
  void* shim;  // the shim's definition (linked statically from poolshim_testlib)
};

#define DIFF(fn, dims, uarch, ...)                                                \
  DiffCase {                                                                      \
    "pthreadpool_" #fn, dims, uarch,                                              \
        [](void* impl, pthreadpool_t pool, const Shape& s, Recorder* r) {         \
          (void)s;                                                                \
          reinterpret_cast<decltype(&pthreadpool_##fn)>(impl)(pool, __VA_ARGS__); \
        },                                                                        \
        reinterpret_cast<void*>(&pthreadpool_##fn)                                \
  }

// The machine has 2 CPUs and this test keeps two engines of up to 4 threads alive (ours and
// Debian's reference): without YIELD_WORKERS, each engine's idle workers spin for a while after
// every call and starve the other's, which only makes the test slow.
constexpr uint32_t kFlags = PTHREADPOOL_FLAG_YIELD_WORKERS;

const DiffCase kCases[] = {
    DIFF(parallelize_1d, 1, false, &record<S>, r, R(0), kFlags),
    DIFF(parallelize_1d_with_uarch, 1, true, &record<U, S>, r, UA, R(0), kFlags),
    DIFF(parallelize_1d_tile_1d, 1, false, &record<S, S>, r, R(0), T(0), kFlags),
    DIFF(parallelize_2d, 2, false, &record<S, S>, r, R(0), R(1), kFlags),
    DIFF(parallelize_2d_tile_1d, 2, false, &record<S, S, S>, r, R(0), R(1), T(1), kFlags),
    DIFF(parallelize_2d_tile_2d, 2, false, &record<S, S, S, S>, r, R(0), R(1), T(0), T(1), kFlags),
    DIFF(parallelize_2d_tile_2d_with_uarch, 2, true, &record<U, S, S, S, S>, r, UA, R(0), R(1),
         T(0), T(1), kFlags),
    DIFF(parallelize_3d, 3, false, &record<S, S, S>, r, R(0), R(1), R(2), kFlags),
    DIFF(parallelize_3d_tile_1d, 3, false, &record<S, S, S, S>, r, R(0), R(1), R(2), T(2), kFlags),
    DIFF(parallelize_3d_tile_2d, 3, false, &record<S, S, S, S, S>, r, R(0), R(1), R(2), T(1), T(2),
         kFlags),
    DIFF(parallelize_3d_tile_2d_with_uarch, 3, true, &record<U, S, S, S, S, S>, r, UA, R(0), R(1),
         R(2), T(1), T(2), kFlags),
    DIFF(parallelize_4d, 4, false, &record<S, S, S, S>, r, R(0), R(1), R(2), R(3), kFlags),
    DIFF(parallelize_4d_tile_1d, 4, false, &record<S, S, S, S, S>, r, R(0), R(1), R(2), R(3), T(3),
         kFlags),
    DIFF(parallelize_4d_tile_2d, 4, false, &record<S, S, S, S, S, S>, r, R(0), R(1), R(2), R(3),
         T(2), T(3), kFlags),
    DIFF(parallelize_4d_tile_2d_with_uarch, 4, true, &record<U, S, S, S, S, S, S>, r, UA, R(0),
         R(1), R(2), R(3), T(2), T(3), kFlags),
    DIFF(parallelize_5d, 5, false, &record<S, S, S, S, S>, r, R(0), R(1), R(2), R(3), R(4), kFlags),
    DIFF(parallelize_5d_tile_1d, 5, false, &record<S, S, S, S, S, S>, r, R(0), R(1), R(2), R(3),
         R(4), T(4), kFlags),
    DIFF(parallelize_5d_tile_2d, 5, false, &record<S, S, S, S, S, S, S>, r, R(0), R(1), R(2), R(3),
         R(4), T(3), T(4), kFlags),
    DIFF(parallelize_6d, 6, false, &record<S, S, S, S, S, S>, r, R(0), R(1), R(2), R(3), R(4), R(5),
         kFlags),
    DIFF(parallelize_6d_tile_1d, 6, false, &record<S, S, S, S, S, S, S>, r, R(0), R(1), R(2), R(3),
         R(4), R(5), T(5), kFlags),
    DIFF(parallelize_6d_tile_2d, 6, false, &record<S, S, S, S, S, S, S, S>, r, R(0), R(1), R(2),
         R(3), R(4), R(5), T(4), T(5), kFlags),
    DIFF(compute_1d, 1, false, &record<S>, r, R(0)),
    DIFF(compute_1d_tiled, 1, false, &record<S, S>, r, R(0), T(0)),
    DIFF(compute_2d, 2, false, &record<S, S>, r, R(0), R(1)),
    DIFF(compute_2d_tiled, 2, false, &record<S, S, S, S>, r, R(0), R(1), T(0), T(1)),
    DIFF(compute_3d_tiled, 3, false, &record<S, S, S, S, S, S>, r, R(0), R(1), R(2), T(0), T(1),
         T(2)),
    DIFF(compute_4d_tiled, 4, false, &record<S, S, S, S, S, S, S, S>, r, R(0), R(1), R(2), R(3),
         T(0), T(1), T(2), T(3)),
};

class Diff : public ::testing::TestWithParam<DiffCase> {};

TEST_P(Diff, SameCallsAsDebian) {
  const DiffCase& c = GetParam();
  ASSERT_NE(debian_handle(), nullptr) << "libpthreadpool.so.0 (libpthreadpool0) is required";
  void* ref = dlsym(debian_handle(), c.name);
  ASSERT_NE(ref, nullptr) << c.name << " missing from Debian's library";
  auto deb_create = PTP_DEBIAN(create);
  auto deb_destroy = PTP_DEBIAN(destroy);

  uint32_t seed = 1;
  for (const char* p = c.name; *p; ++p) seed = seed * 31 + static_cast<uint8_t>(*p);
  const auto shapes = random_shapes(c.dims, 25, seed);

  // Another client's request keeps the one pool at the whole budget (4), so limits 1..3 are
  // limits within a larger pool. threads == 0 stands for the NULL pool.
  pthreadpool_t wide = pthreadpool_create(0);
  for (size_t threads : {size_t{0}, size_t{1}, size_t{2}, size_t{3}, size_t{4}}) {
    pthreadpool_t mine = threads ? pthreadpool_create(threads) : nullptr;
    pthreadpool_t theirs = threads ? deb_create(threads) : nullptr;
    ASSERT_TRUE(threads == 0 || (mine && theirs));
    for (const Shape& s : shapes) {
      SCOPED_TRACE(std::string(c.name) + " threads=" + std::to_string(threads) + " " + s.str());
      Recorder a, b;
      c.invoke(c.shim, mine, s, &a);
      bool empty = false;
      for (size_t d = 0; d < c.dims; ++d) empty |= s.r[d] == 0;
      if (empty) {
        // The snippet makes no call. (Debian's engine, built with assertions, aborts on a zero
        // dimension of a multi-dimensional call when another dimension is > 1: not a reference.)
        EXPECT_TRUE(a.calls.empty());
        continue;
      }
      c.invoke(ref, theirs, s, &b);
      if (c.name[12] == 'c') {  // compute_* take no flags: put both engines' workers to sleep
        pthreadpool_parallelize_1d(
            mine, [](void*, size_t) {}, nullptr, 8, kFlags);
        PTP_DEBIAN(parallelize_1d)
        (
            theirs, [](void*, size_t) {}, nullptr, 8, kFlags);
      }
      if (threads <= 1) {
        // Serial: the header's snippet order, call for call.
        EXPECT_EQ(a.calls, b.calls);
      } else {
        EXPECT_EQ(a.sorted(), b.sorted());
      }
      if (c.uarch)
        for (const Call& call : a.calls) EXPECT_EQ(call[0], s.default_uarch);
    }
    if (mine) pthreadpool_destroy(mine);
    if (theirs) deb_destroy(theirs);
  }
  pthreadpool_destroy(wide);
}

void PrintTo(const DiffCase& c, std::ostream* os) { *os << c.name; }

INSTANTIATE_TEST_SUITE_P(Debian30, Diff, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<DiffCase>& info) {
                           return std::string(info.param.name + sizeof("pthreadpool_") - 1);
                         });

TEST(DiffLifecycle, ThreadsCountMatchesDebianWithinTheBudget) {
  auto deb_create = PTP_DEBIAN(create);
  auto deb_destroy = PTP_DEBIAN(destroy);
  auto deb_count = PTP_DEBIAN(get_threads_count);
  ASSERT_TRUE(deb_create && deb_destroy && deb_count);
  EXPECT_EQ(pthreadpool_get_threads_count(nullptr), deb_count(nullptr));
  for (size_t n = 1; n <= 4; ++n) {  // the budget is 4
    pthreadpool_t mine = pthreadpool_create(n);
    pthreadpool_t theirs = deb_create(n);
    EXPECT_EQ(pthreadpool_get_threads_count(mine), deb_count(theirs)) << n;
    pthreadpool_destroy(mine);
    deb_destroy(theirs);
  }
  pthreadpool_destroy(nullptr);  // allowed by both
  deb_destroy(nullptr);
}

TEST(DiffLifecycle, ShimSymbolsAreNotDebians) {
  // The comparison above is meaningless if dlsym handed us our own definitions.
  Dl_info mine, theirs;
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&pthreadpool_parallelize_1d), &mine), 0);
  ASSERT_NE(dladdr(reinterpret_cast<void*>(PTP_DEBIAN(parallelize_1d)), &theirs), 0);
  EXPECT_NE(mine.dli_fbase, theirs.dli_fbase);
}

}  // namespace
