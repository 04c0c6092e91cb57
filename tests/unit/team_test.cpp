// core/team.h: a gang's members run at the same time (each waits until all have arrived, which
// would hang if any two ran one after the other), each member number once, the caller is member
// 0, teams larger than the pool get threads beyond it, and concurrent and nested gangs finish.
#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "core/team.h"

namespace {

struct Meeting {
  unsigned n;
  std::atomic<unsigned> arrived{0};
  std::atomic<unsigned> seen_mask{0};
  std::atomic<bool> caller_was_0{false};
  pthread_t caller;
};

void meet(void* ctx, unsigned m) {
  Meeting& g = *static_cast<Meeting*>(ctx);
  g.seen_mask.fetch_or(1u << m);
  if (m == 0) g.caller_was_0 = pthread_equal(pthread_self(), g.caller);
  g.arrived.fetch_add(1);
  while (g.arrived.load() < g.n) std::this_thread::yield();  // all members at once, or a hang
}

void run_meeting(unsigned n) {
  Meeting g;
  g.n = n;
  g.caller = pthread_self();
  poolshim::core::team::run(n, meet, &g);
  EXPECT_EQ(g.arrived.load(), n);
  EXPECT_EQ(g.seen_mask.load(), (n == 32 ? ~0u : (1u << n) - 1));
  EXPECT_TRUE(g.caller_was_0.load());
}

TEST(Team, MembersRunAtOnce) {
  for (unsigned n : {1u, 2u, 3u, 5u, 8u})
    for (int rep = 0; rep < 20; ++rep) run_meeting(n);
}

TEST(Team, ConcurrentGangsFromSeveralThreads) {
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([] {
      for (int rep = 0; rep < 50; ++rep) run_meeting(3);
    });
  for (auto& t : ts) t.join();
}

void nested(void* ctx, unsigned m) { run_meeting(2); }

TEST(Team, NestedGangs) {
  for (int rep = 0; rep < 20; ++rep) poolshim::core::team::run(3, nested, nullptr);
}

TEST(Team, StartJoinLetsTheCallerWorkBetween) {
  Meeting g;
  g.n = 3;
  g.caller = pthread_self();
  poolshim::core::team::Gang h = poolshim::core::team::start(3, meet, &g);
  meet(&g, 0);
  poolshim::core::team::join(h);
  EXPECT_EQ(g.seen_mask.load(), 7u);
}

}  // namespace
