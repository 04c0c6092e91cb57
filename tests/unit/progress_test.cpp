// Progress: while one item of a call blocks until every other item of the same call has run, the
// other items still run (pthreadpool's contract, the spirit of upstream's
// MultiThreadPoolWorkStealing tests, written for poolshim). The blocked item is the first one, a
// middle item of the caller's lane, the last item of the caller's lane, and the last item of the
// call; at 2 and at 4 threads; for every parallelize_* and compute_* function, the native API,
// the core's own run() and ExecuTorch's ThreadPool::run. Built twice: linked with the shim's
// objects (unit.progress.*), and as a program linked to Debian's libpthreadpool that only the
// preloaded shim completes (unit.progress_preload: tests/unit/CMakeLists.txt).
//
// A blocked item gives up after kPatience (the test then fails instead of hanging): with the
// scheduler of b04732c, which ran a claimed run of items on its claimer only, the items behind the
// blocked one waited for it forever.
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <numeric>

#include "core/counters.h"
#include "core/pool.h"
#include "function_ref.h"
#include "poolshim/poolshim.h"
#include "pthreadpool_cases.h"
#include "threadpool.h"

// The preload build links Debian's libpthreadpool, which has 30 of the 58 functions: every one is
// declared weak, so the program links, and the preloaded shim defines them all at run time.
#ifdef POOLSHIM_PROGRESS_PRELOAD
#define POOLSHIM_PRAGMA(x) _Pragma(#x)
#define X(ident) POOLSHIM_PRAGMA(weak pthreadpool_##ident)
#include "symbols/pthreadpool.def"
#undef X
#pragma weak poolshim_parallelize_1d
#pragma weak poolshim_debug_counters
#endif

using namespace ptp_test;

namespace {

EnvAtLoad g_env("POOLSHIM_NUM_THREADS", "4");

constexpr auto kPatience = std::chrono::seconds(10);

// Counts the cells each call covers; the call that covers `blocked` waits until every cell
// outside it has been covered.
class Blocker {
 public:
  Blocker(size_t cells, size_t blocked) : seen_(cells, 0), blocked_(blocked) {}

  void cover(const std::vector<size_t>& cells) {
    bool blocks = std::find(cells.begin(), cells.end(), blocked_) != cells.end();
    std::unique_lock<std::mutex> lock(mutex_);
    if (blocks) {
      size_t others = seen_.size() - cells.size();
      if (!cv_.wait_for(lock, kPatience, [&] { return done_ == others; })) timed_out_ = true;
    }
    for (size_t c : cells) ++seen_[c];
    done_ += cells.size();
    cv_.notify_all();
  }

  // "" when every cell was covered exactly once and the blocked item never gave up.
  std::string verdict() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (timed_out_) return "the blocked item waited in vain: items behind it never ran";
    for (size_t i = 0; i < seen_.size(); ++i)
      if (seen_[i] != 1)
        return "cell " + std::to_string(i) + " ran " + std::to_string(seen_[i]) + " times";
    return "";
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<int> seen_;
  size_t done_ = 0;
  size_t blocked_;
  bool timed_out_ = false;
};

// The items the test blocks on, for a call of n items split into `threads` lanes.
std::vector<size_t> blocked_items(size_t n, size_t threads) {
  size_t lane = (n + threads - 1) / threads;  // the caller's lane is [0, lane)
  return {0, lane / 2, lane - 1, n - 1};
}

// A shape of about 48 cells, every tile 1 (each tile is one item).
Shape shape_for(size_t dims) {
  static const size_t kRanges[6][6] = {{48},         {6, 8},          {4, 3, 4},
                                       {2, 3, 2, 4}, {2, 2, 3, 2, 2}, {2, 2, 2, 2, 3, 2}};
  Shape s;
  for (size_t d = 0; d < dims; ++d) s.r[d] = kRanges[dims - 1][d];
  return s;
}

// The cells a recorded call covers: its arguments without uarch and thread index are the starts
// of every dimension, then the counts of the tiled ones.
std::vector<size_t> cells_of(const HeaderCase& c, const Shape& s, const Call& call) {
  std::vector<size_t> own;
  for (size_t i = 0; i < call.size(); ++i)
    if (static_cast<int>(i) != c.uarch_pos && static_cast<int>(i) != c.thread_pos)
      own.push_back(call[i]);
  size_t start[6], count[6], k = c.dims;
  for (size_t d = 0; d < c.dims; ++d) {
    start[d] = own[d];
    count[d] = (c.tiled & (1u << d)) ? own[k++] : 1;
  }
  std::vector<size_t> cells;
  std::function<void(size_t, size_t)> mark = [&](size_t d, size_t flat) {
    if (d == c.dims) return cells.push_back(flat);
    for (size_t x = start[d]; x < start[d] + count[d]; ++x) mark(d + 1, flat * s.r[d] + x);
  };
  mark(0, 0);
  return cells;
}

class Progress : public ::testing::TestWithParam<HeaderCase> {};

TEST_P(Progress, BlockedItemHoldsNoOtherItemHostage) {
  const HeaderCase& c = GetParam();
  ASSERT_NE(&poolshim_parallelize_1d, nullptr) << "the shim is not loaded";
  const Shape s = shape_for(c.dims);
  const size_t n = std::accumulate(s.r, s.r + c.dims, size_t{1}, std::multiplies<size_t>());
  for (size_t threads : {size_t{2}, size_t{4}}) {
    pthreadpool_t pool = pthreadpool_create(threads);
    for (size_t blocked : blocked_items(n, threads)) {
      SCOPED_TRACE(std::string(c.name) + " threads=" + std::to_string(threads) + " blocked item " +
                   std::to_string(blocked) + " of " + std::to_string(n));
      Blocker b(n, blocked);
      Recorder rec;
      rec.on_call = [&](const Call& call) { b.cover(cells_of(c, s, call)); };
      c.invoke(pool, s, &rec);
      EXPECT_EQ(b.verdict(), "");
    }
    pthreadpool_destroy(pool);
  }
}

INSTANTIATE_TEST_SUITE_P(AllShapes, Progress, ::testing::ValuesIn(kAllCases), case_name);

// The same for the surfaces that are not pthreadpool's: each takes one item per index.
void expect_progress(const char* what, size_t threads,
                     const std::function<void(size_t n, Blocker&)>& call) {
  const size_t n = 64;
  for (size_t blocked : blocked_items(n, threads)) {
    SCOPED_TRACE(std::string(what) + " threads=" + std::to_string(threads) + " blocked item " +
                 std::to_string(blocked));
    Blocker b(n, blocked);
    call(n, b);
    EXPECT_EQ(b.verdict(), "");
  }
}

TEST(ProgressSurfaces, NativeApi) {
  for (size_t threads : {size_t{2}, size_t{4}}) {
    expect_progress("poolshim_parallelize_1d", threads, [&](size_t n, Blocker& b) {
      poolshim_parallelize_1d(
          [](void* ctx, size_t, size_t i) { static_cast<Blocker*>(ctx)->cover({i}); }, &b, n,
          threads);
    });
  }
}

// Calls of one task that each ran on their caller alone make the pool publish the next call of
// that task patient: spinning workers hold back from it for a moment (core/publish.h,
// "Patience"). A patient call whose first item (the caller's) blocks until its second item has
// run must still complete: a worker joins it late. A counting build also checks that the call
// was published patient, trying again (more short calls first) when a worker happened to join
// one of the short calls just before it, or was not awake (a patient call is published quietly
// for awake workers only; a loaded host, or the kernel queueing a woken worker behind its busy
// caller, keeps one off any CPU at times: a 2 ms pause before the next attempt).
TEST(ProgressSurfaces, PatientCallWhoseFirstItemBlocks) {
  struct Ctx {
    Blocker* blocker;
  };
  auto task = [](void* c, size_t, size_t i) {
    if (Blocker* b = static_cast<Ctx*>(c)->blocker) b->cover({i});
  };
  const bool counting =
      &poolshim_debug_counters != nullptr && poolshim_debug_counters(nullptr, 0) == 0;
  bool patient = false;
  for (int attempt = 0; attempt < 200 && !patient; ++attempt) {
    Ctx ctx{nullptr};
    for (int i = 0; i < 200; ++i) poolshim_parallelize_1d(task, &ctx, 2, 2);  // short, alone
    Blocker b(2, 0);
    ctx.blocker = &b;
    if (counting) poolshim_debug_counters(nullptr, 1);
    poolshim_parallelize_1d(task, &ctx, 2, 2);
    EXPECT_EQ(b.verdict(), "");
    poolshim_sched_counters c{};
    patient = !counting || (poolshim_debug_counters(&c, 0) == 0 && c.patient_calls == 1);
    if (!patient) usleep(2000);  // off the CPU for a moment: the kernel may place the worker anew
  }
  EXPECT_TRUE(patient) << "no blocking call was published patient in 200 attempts";
}

#ifndef POOLSHIM_PROGRESS_PRELOAD  // the core's API is internal, ExecuTorch's is C++: linked only
TEST(ProgressSurfaces, CoreRun) {
  for (size_t threads : {size_t{2}, size_t{4}}) {
    expect_progress("core::run", threads, [&](size_t n, Blocker& b) {
      poolshim::core::run(
          n, [](void* ctx, size_t, size_t i) { static_cast<Blocker*>(ctx)->cover({i}); }, &b,
          threads);
    });
  }
}

TEST(ProgressSurfaces, ExecuTorchRun) {
  auto* pool = executorch::extension::threadpool::get_threadpool();
  ASSERT_NE(pool, nullptr);
  ASSERT_EQ(pool->get_thread_count(), 4u);
  expect_progress("ThreadPool::run", 4,
                  [&](size_t n, Blocker& b) { pool->run([&b](size_t i) { b.cover({i}); }, n); });
}
#endif  // POOLSHIM_PROGRESS_PRELOAD

}  // namespace
