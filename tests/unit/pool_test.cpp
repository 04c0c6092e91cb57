// The one pool (shim/core): every item once, thread-index bounds, nesting, concurrent callers,
// resize under load, fork.
#include <gtest/gtest.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/pool.h"
#include "core/size.h"

namespace {

// A known budget, set before anything reads the environment (the budget is computed once).
// 3 threads, so that limits below the pool size (2) are exercised even on a 2-core machine.
const int g_env = (setenv("POOLSHIM_NUM_THREADS", "3", 1), 0);

struct Counts {
  std::vector<std::atomic<int>> hits;
  std::atomic<size_t> max_thread{0};
  explicit Counts(size_t n) : hits(n) {}
};

void count_item(void* ctx, size_t thread_index, size_t item) {
  auto* c = static_cast<Counts*>(ctx);
  c->hits[item].fetch_add(1);
  size_t prev = c->max_thread.load();
  while (thread_index > prev && !c->max_thread.compare_exchange_weak(prev, thread_index)) {
  }
}

TEST(Pool, EveryItemExactlyOnceWithinTheWidth) {
  for (size_t range : {0, 1, 2, 3, 7, 64, 1000}) {
    for (size_t limit : {0, 1, 2, 3, 4, 10}) {
      Counts c(range);
      size_t width = poolshim::core::width(limit);
      poolshim::core::run(range, count_item, &c, limit);
      for (size_t i = 0; i < range; ++i)
        ASSERT_EQ(c.hits[i].load(), 1) << "range " << range << " limit " << limit << " item " << i;
      if (range > 0)
        EXPECT_LT(c.max_thread.load(), width) << "range " << range << " limit " << limit;
    }
  }
}

TEST(Pool, WidthFollowsLimitAndPool) {
  EXPECT_EQ(poolshim::core::width(1), 1u);
  EXPECT_EQ(poolshim::core::width(0), poolshim::core::pool_size());
  EXPECT_LE(poolshim::core::width(3), 3u);
  EXPECT_GE(poolshim::core::pool_size(), 1u);
}

// Concurrent invocations inside one call never share a thread index. Each item holds its index
// busy until `want` distinct indices (the call's width) have entered the call, so every thread of
// the call is inside an item at once: a serial pool, or one that gives two threads one index,
// cannot get past the first items (and a shared index is caught busy). The wait is bounded: after
// kJoinWaitS the items stop waiting and the test fails instead of hanging.
constexpr int kJoinWaitS = 30;
struct Exclusive {
  std::atomic<int> busy[64];
  std::atomic<int> clashes{0};
  std::atomic<uint64_t> seen{0};  // bit t: index t ran an item
  std::atomic<bool> gave_up{false};
  int want = 2;
  int distinct() const { return __builtin_popcountll(seen.load()); }
};
void wait_until_all_indices_joined(Exclusive* e) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kJoinWaitS);
  while (e->distinct() < e->want && !e->gave_up.load()) {
    if (std::chrono::steady_clock::now() > deadline) e->gave_up = true;
    std::this_thread::yield();
  }
}
void exclusive_item(void* ctx, size_t t, size_t) {
  auto* e = static_cast<Exclusive*>(ctx);
  if (e->busy[t].exchange(1) != 0) e->clashes.fetch_add(1);
  e->seen.fetch_or(uint64_t{1} << t);
  wait_until_all_indices_joined(e);
  for (volatile int spin = 0; spin < 2000; spin = spin + 1) {
  }
  e->busy[t].store(0);
}

TEST(Pool, ThreadIndexIsExclusiveWithinACall) {
  for (size_t limit : {0, 2, 3}) {
    Exclusive e{};
    e.want = static_cast<int>(poolshim::core::width(limit));
    ASSERT_GE(e.want, 2) << "limit " << limit;
    poolshim::core::run(500, exclusive_item, &e, limit);
    EXPECT_EQ(e.clashes.load(), 0) << "limit " << limit;
    ASSERT_FALSE(e.gave_up.load())
        << "limit " << limit << ": " << e.distinct() << " of " << e.want
        << " thread indices joined the call within " << kJoinWaitS << " s";
  }
}

// A task that calls back into the pool runs the inner loop inline, on its own thread.
struct Nested {
  std::atomic<int> inner_items{0};
  std::atomic<int> foreign_thread{0};
};
void inner_item(void* ctx, size_t, size_t) {
  auto* n = static_cast<Nested*>(ctx);
  n->inner_items.fetch_add(1);
}
void outer_item(void* ctx, size_t, size_t) {
  auto* n = static_cast<Nested*>(ctx);
  EXPECT_TRUE(poolshim::core::in_task());
  pthread_t self = pthread_self();
  struct Probe {
    Nested* n;
    pthread_t owner;
  } probe{n, self};
  poolshim::core::run(
      10,
      [](void* p, size_t, size_t) {
        auto* pr = static_cast<Probe*>(p);
        if (!pthread_equal(pr->owner, pthread_self())) pr->n->foreign_thread.fetch_add(1);
        inner_item(pr->n, 0, 0);
      },
      &probe, 0);
}

TEST(Pool, NestedCallsRunInlineOnTheCallingThread) {
  Nested n;
  poolshim::core::run(16, outer_item, &n, 0);
  EXPECT_EQ(n.inner_items.load(), 160);
  EXPECT_EQ(n.foreign_thread.load(), 0);
  EXPECT_FALSE(poolshim::core::in_task());
}

TEST(Pool, ConcurrentCallersAreAllExecuted) {
  constexpr int kThreads = 4, kCalls = 50, kItems = 16;
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&total] {
      for (int c = 0; c < kCalls; ++c)
        poolshim::core::run(
            kItems,
            [](void* p, size_t, size_t) { static_cast<std::atomic<long>*>(p)->fetch_add(1); },
            &total, 0);
    });
  }
  for (auto& th : callers) th.join();
  EXPECT_EQ(total.load(), long{kThreads} * kCalls * kItems);
}

TEST(Pool, ResizeWhileOtherThreadsRun) {
  std::atomic<bool> stop{false};
  std::atomic<long> total{0};
  std::atomic<int> out_of_bounds{0};
  struct Ctx {
    std::atomic<long>* total;
    std::atomic<int>* oob;
  } ctx{&total, &out_of_bounds};
  std::thread runner([&] {
    for (int c = 0; c < 400; ++c)
      poolshim::core::run(
          32,
          [](void* p, size_t t, size_t) {
            auto* x = static_cast<Ctx*>(p);
            x->total->fetch_add(1);
            if (t >= 3) x->oob->fetch_add(1);  // never beyond the budget
          },
          &ctx, 0);
    stop = true;
  });
  size_t sizes[] = {1, 3, 2, 5, 0};  // 5 is above the budget: clamped
  for (int i = 0; !stop; ++i) {
    poolshim::core::request_size(sizes[i % 5]);
    std::this_thread::yield();
  }
  runner.join();
  poolshim::core::request_size(0);
  EXPECT_EQ(total.load(), 400L * 32);
  EXPECT_EQ(out_of_bounds.load(), 0);
}

// A width read bounds the reading thread's next call, whatever changes in between.
TEST(Pool, WidthReadBoundsTheNextCallAcrossAResize) {
  poolshim::core::set_cap(1);
  size_t read = poolshim::core::width(0);
  ASSERT_EQ(read, 1u);
  poolshim::core::set_cap(0);  // the pool grows back to 3 between the read and the call
  ASSERT_EQ(poolshim::core::pool_size(), 3u);
  Counts c(2000);
  poolshim::core::run(
      2000,
      [](void* p, size_t t, size_t i) {
        for (volatile int spin = 0; spin < 2000; spin = spin + 1) {
        }
        count_item(p, t, i);
      },
      &c, 0);
  EXPECT_LT(c.max_thread.load(), read);
  // The read bounded that one call only: the next one may use the whole pool again.
  Exclusive e{};
  e.want = 3;
  poolshim::core::run(500, exclusive_item, &e, 0);
  EXPECT_FALSE(e.gave_up.load()) << e.distinct() << " of 3 thread indices joined the next call";
  EXPECT_EQ(e.clashes.load(), 0);
}

TEST(Pool, CapLimitsLaterCallsAndZeroRemovesIt) {
  EXPECT_EQ(poolshim::core::set_cap(2), 2u);
  EXPECT_EQ(poolshim::core::budget(), 2u);
  EXPECT_EQ(poolshim::core::pool_size(), 2u);
  Counts c(3000);
  poolshim::core::run(3000, count_item, &c, 0);
  EXPECT_LT(c.max_thread.load(), 2u);
  EXPECT_EQ(poolshim::core::set_cap(0), 3u);
  EXPECT_EQ(poolshim::core::cap(), 0u);
  EXPECT_EQ(poolshim::core::set_cap(100), 3u);  // a cap above the computed budget changes nothing
  poolshim::core::set_cap(0);
}

// Two threads each in a call that cannot finish until the other's call has run: a pool that
// made one caller wait for the other's call would hang here. The threads are watched from the
// test's thread (no fork: ThreadSanitizer does not support threads in a forked child).
TEST(Pool, NoCallerWaitsForAnotherCallersCall) {
  static std::atomic<int> flags[3];  // [0]: a's item started, [1]: b's call finished, [2]: done
  Counts c(64);
  std::thread ta([] {
    poolshim::core::run_ranges(
        1,
        [](void*, size_t, size_t begin, poolshim::core::Run& run) {
          if (!poolshim::core::Taker(run).take(begin)) return;
          flags[0] = 1;
          while (flags[1].load() == 0) {  // a's call cannot end before b's has
          }
        },
        nullptr, 0);
  });
  std::thread tb([&c] {
    while (flags[0].load() == 0) {
    }
    poolshim::core::run(64, count_item, &c, 0);  // must not wait for a's call
    flags[1] = 1;
    flags[2] = 1;
  });
  for (int ms = 0; flags[2].load() == 0; ++ms) {
    if (ms == 20000) {
      fprintf(stderr, "NoCallerWaitsForAnotherCallersCall: hung for 20 s\n");
      _exit(3);  // the hung threads cannot be joined
    }
    usleep(1000);
  }
  ta.join();
  tb.join();
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(c.hits[i].load(), 1);
}

// An exception thrown by a task reaches the caller; claimed items finish, the pool stays usable.
TEST(Pool, ExceptionFromATaskIsRethrownOnTheCaller) {
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> ran{0};
    bool caught = false;
    try {
      poolshim::core::run(
          200,
          [](void* p, size_t, size_t i) {
            static_cast<std::atomic<int>*>(p)->fetch_add(1);
            if (i == 150) throw std::runtime_error("task 150");
          },
          &ran, 0);
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "task 150";
    }
    ASSERT_TRUE(caught) << "round " << round;
    EXPECT_FALSE(poolshim::core::in_task());
    EXPECT_LE(ran.load(), 200);
    Counts c(100);
    poolshim::core::run(100, count_item, &c, 0);
    for (size_t i = 0; i < 100; ++i) ASSERT_EQ(c.hits[i].load(), 1);
  }
}

TEST(Pool, ForkedChildGetsAWorkingPool) {
  Counts warm(100);
  poolshim::core::run(100, count_item, &warm, 0);  // the parent's workers exist now
  ASSERT_TRUE(poolshim::core::started());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a hang in the child fails the test instead of blocking it
    Counts c(1000);
    poolshim::core::run(1000, count_item, &c, 0);
    for (size_t i = 0; i < 1000; ++i)
      if (c.hits[i].load() != 1) _exit(1);
    _exit(poolshim::core::started() ? 0 : 2);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child died of signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
