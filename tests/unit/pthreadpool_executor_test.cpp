// pthreadpool_create_v2 with a client executor, pthreadpool_update_executor,
// pthreadpool_release_executor_threads: the header's contract, including executors that run
// tasks inline or late.
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <thread>

#include "pthreadpool_testing.h"

using namespace ptp_test;

namespace {

EnvAtLoad g_env("POOLSHIM_NUM_THREADS", "4");

// Runs each scheduled task on a new thread (joined by the destructor).
struct ThreadExecutor {
  int threads;
  std::atomic<size_t> scheduled{0};
  std::mutex m;
  std::vector<std::thread> running;
  pthreadpool_executor table{&num_threads, &schedule};

  explicit ThreadExecutor(int n) : threads(n) {}
  ~ThreadExecutor() {
    for (auto& t : running) t.join();
  }
  static int num_threads(void* self) { return static_cast<ThreadExecutor*>(self)->threads; }
  static void schedule(void* self, void* context, void (*task)(void*)) {
    auto* e = static_cast<ThreadExecutor*>(self);
    e->scheduled.fetch_add(1);
    std::lock_guard<std::mutex> lock(e->m);
    e->running.emplace_back([=] { task(context); });
  }
};

// Runs scheduled tasks only when asked (after the call returned): a busy executor.
struct LateExecutor {
  std::deque<std::pair<void (*)(void*), void*>> queue;
  pthreadpool_executor table{[](void*) { return 3; },
                             [](void* self, void* context, void (*task)(void*)) {
                               static_cast<LateExecutor*>(self)->queue.emplace_back(task, context);
                             }};
  void drain() {
    while (!queue.empty()) {
      auto t = queue.front();
      queue.pop_front();
      t.first(t.second);
    }
  }
};

// Runs each task synchronously inside schedule().
pthreadpool_executor g_inline{[](void*) { return 2; },
                              [](void*, void* context, void (*task)(void*)) { task(context); }};

struct Probe {
  std::mutex m;
  std::vector<size_t> items, indices;
};
void probe(void* ctx, size_t thread_index, size_t item) {
  auto* p = static_cast<Probe*>(ctx);
  std::lock_guard<std::mutex> lock(p->m);
  p->items.push_back(item);
  p->indices.push_back(thread_index);
}
void expect_each_once(Probe& p, size_t range, size_t limit) {
  std::vector<size_t> items = p.items;
  std::sort(items.begin(), items.end());
  ASSERT_EQ(items.size(), range);
  for (size_t i = 0; i < range; ++i) ASSERT_EQ(items[i], i);
  for (size_t t : p.indices) ASSERT_LT(t, limit);
}

TEST(Executor, ThreadsAreMinOfMaxAndExecutorPlusCaller) {
  ThreadExecutor e(2);
  pthreadpool_t a = pthreadpool_create_v2(&e.table, &e, 8);
  EXPECT_EQ(pthreadpool_get_threads_count(a), 3u);  // 2 executor threads + the caller
  pthreadpool_t b = pthreadpool_create_v2(&e.table, &e, 2);
  EXPECT_EQ(pthreadpool_get_threads_count(b), 2u);
  pthreadpool_t c = pthreadpool_create_v2(&e.table, &e, 0);  // 0 = all processors (the budget)
  EXPECT_EQ(pthreadpool_get_threads_count(c), 3u);
  pthreadpool_destroy(a);
  pthreadpool_destroy(b);
  pthreadpool_destroy(c);
}

TEST(Executor, CallsUseTheExecutorsThreads) {
  ThreadExecutor e(3);
  pthreadpool_t h = pthreadpool_create_v2(&e.table, &e, 0);
  ASSERT_EQ(pthreadpool_get_threads_count(h), 4u);
  Probe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 3000, 0);
  expect_each_once(p, 3000, 4);
  EXPECT_EQ(e.scheduled.load(), 3u);  // min(max, num_threads()) tasks per call
  Recorder r;
  pthreadpool_parallelize_2d_tile_2d(h, &record<size_t, size_t, size_t, size_t>, &r, 9, 10, 2, 3,
                                     0);
  EXPECT_EQ(r.calls.size(), 5u * 4);
  EXPECT_EQ(e.scheduled.load(), 6u);
  pthreadpool_destroy(h);
}

TEST(Executor, SetThreadsCountLimitsTheScheduledTasks) {
  ThreadExecutor e(3);
  pthreadpool_t h = pthreadpool_create_v2(&e.table, &e, 0);
  EXPECT_EQ(pthreadpool_set_threads_count(h, 2), 2u);
  Probe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 500, 0);
  expect_each_once(p, 500, 2);
  EXPECT_EQ(e.scheduled.load(), 1u);
  EXPECT_EQ(pthreadpool_set_threads_count(h, 0), 4u);
  pthreadpool_destroy(h);
}

TEST(Executor, LateTasksFindNothingLeft) {
  LateExecutor e;
  pthreadpool_t h = pthreadpool_create_v2(&e.table, &e, 0);
  Probe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 100, 0);  // must not wait for the queue
  expect_each_once(p, 100, 4);
  for (size_t t : p.indices) EXPECT_EQ(t, 0u);  // the caller did everything
  EXPECT_EQ(e.queue.size(), 3u);
  e.drain();  // the late tasks run after the call: harmless
  EXPECT_EQ(p.items.size(), 100u);
  pthreadpool_release_executor_threads(h);
  pthreadpool_destroy(h);
}

TEST(Executor, InlineExecutorWorks) {
  pthreadpool_t h = pthreadpool_create_v2(&g_inline, nullptr, 0);
  Probe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 64, 0);
  expect_each_once(p, 64, 3);
  pthreadpool_destroy(h);
}

TEST(Executor, UpdateExecutorSwapsTheThreads) {
  ThreadExecutor first(1), second(2);
  pthreadpool_t h = pthreadpool_create_v2(&first.table, &first, 0);
  EXPECT_FALSE(pthreadpool_update_executor(h, &first.table, &first));  // identical: no change
  EXPECT_TRUE(pthreadpool_update_executor(h, &second.table, &second));
  Probe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 200, 0);
  expect_each_once(p, 200, pthreadpool_get_threads_count(h));
  EXPECT_EQ(first.scheduled.load(), 0u);
  EXPECT_EQ(second.scheduled.load(), 1u);  // threads stay 2 (created with 1 + caller)
  EXPECT_FALSE(pthreadpool_update_executor(nullptr, &second.table, &second));
  pthreadpool_destroy(h);
}

TEST(Executor, UpdateExecutorOnASharedHandle) {
  ThreadExecutor e(1);
  pthreadpool_t h = pthreadpool_create(2);
  EXPECT_TRUE(pthreadpool_update_executor(h, &e.table, &e));
  Probe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 100, 0);
  expect_each_once(p, 100, 2);
  EXPECT_EQ(e.scheduled.load(), 1u);
  pthreadpool_destroy(h);
}

TEST(Executor, CreateV2WithoutExecutorIsCreate) {
  pthreadpool_t h = pthreadpool_create_v2(nullptr, nullptr, 3);
  EXPECT_EQ(pthreadpool_get_threads_count(h), 3u);
  pthreadpool_release_executor_threads(h);  // does nothing for such a pool
  Probe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 100, 0);
  expect_each_once(p, 100, 3);
  pthreadpool_destroy(h);
}

}  // namespace

// A C++ exception escaping a task on an executor handle (the surface's own scheduling path):
// caught where it is thrown, unclaimed items skipped, rethrown on the caller once the handle is
// free again; the next call on the same handle runs every item.
struct Boom {};
void throw_at_5(void* ctx, size_t i) {
  static_cast<std::atomic<size_t>*>(ctx)->fetch_add(1);
  if (i == 5) throw Boom{};
}

TEST(ExecutorExceptions, RethrownOnTheCallerAndTheHandleStaysUsable) {
  ThreadExecutor e(3);
  pthreadpool_t pool = pthreadpool_create_v2(&e.table, &e, 4);
  ASSERT_NE(pool, nullptr);
  for (int round = 0; round < 20; ++round) {
    std::atomic<size_t> ran{0};
    EXPECT_THROW(pthreadpool_parallelize_1d(pool, throw_at_5, &ran, 1000, 0), Boom);
    EXPECT_GE(ran.load(), 6u);  // item 5 ran (and threw); at most every item ran
    EXPECT_LE(ran.load(), 1000u);
    Probe p;  // the handle's mutex was released: the next call runs, every item once
    pthreadpool_parallelize_1d_with_thread(pool, probe, &p, 64, 0);
    expect_each_once(p, 64, 4);
  }
  pthreadpool_destroy(pool);

  // The executor runs the scheduled tasks inline inside schedule(): the throw happens there,
  // on the calling thread, before the caller's own loop starts.
  pthreadpool_t inl = pthreadpool_create_v2(&g_inline, nullptr, 2);
  std::atomic<size_t> ran{0};
  EXPECT_THROW(pthreadpool_parallelize_1d(inl, throw_at_5, &ran, 100, 0), Boom);
  Probe p;
  pthreadpool_parallelize_1d_with_thread(inl, probe, &p, 16, 0);
  expect_each_once(p, 16, 2);
  pthreadpool_destroy(inl);
}

// The NULL pool runs the call on the caller: an exception propagates from the item that threw,
// the items after it are not run (as in the header's serial snippet), and the floating-point
// state set for PTHREADPOOL_FLAG_DISABLE_DENORMALS is restored on the way out.
TEST(ExecutorExceptions, SerialPathUnwindsCleanly) {
  std::atomic<size_t> ran{0};
#if defined(__x86_64__)
  unsigned before = __builtin_ia32_stmxcsr();
#endif
  EXPECT_THROW(pthreadpool_parallelize_1d(nullptr, throw_at_5, &ran, 100,
                                          PTHREADPOOL_FLAG_DISABLE_DENORMALS),
               Boom);
  EXPECT_EQ(ran.load(), 6u);
#if defined(__x86_64__)
  EXPECT_EQ(__builtin_ia32_stmxcsr(), before);
#endif
}
