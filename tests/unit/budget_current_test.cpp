// budget::current() on the real machine, POOLSHIM_NUM_THREADS unset: the cached result agrees with
// the affinity mask and the cgroup limit, and concurrent first callers all get the same object.
// (Its own executable: current() caches once per process.)
#include "budget/budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "budget/affinity.h"
#include "budget/cgroup.h"
#include "diag/options.h"

namespace pb = poolshim::budget;

TEST(BudgetCurrent, ConcurrentFirstCallsAgreeAndMatchTheMachine) {
  ::unsetenv("POOLSHIM_NUM_THREADS");
  poolshim::diag::reload_options_for_testing();

  std::atomic<int> go{0};
  std::vector<const pb::Budget*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      while (go.load() == 0) std::this_thread::yield();
      seen[i] = &pb::current();
    });
  }
  go.store(1);
  for (auto& t : threads) t.join();
  for (const auto* b : seen) EXPECT_EQ(b, &pb::current());

  const pb::Budget& b = pb::current();
  size_t affinity = pb::affinity_cpus();
  pb::CgroupLimit cg = pb::read_cgroup_limit();
  size_t expected = affinity;
  if (cg.cpus > 0 && cg.cpus < expected) expected = cg.cpus;
  EXPECT_EQ(b.threads, expected) << b.source;
  EXPECT_EQ(b.affinity_cpus, affinity);
  EXPECT_EQ(b.cgroup_cpus, cg.cpus);
  EXPECT_GE(b.threads, 1u);
  EXPECT_NE(b.source[0], '\0');
  EXPECT_NE(b.cgroup_detail[0], '\0');
}
