// budget::current() with POOLSHIM_NUM_THREADS=3: the variable wins and the source says so.
// (Its own executable: current() caches once per process, and the environment is read once.)
#include "budget/budget.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "config/options.h"

namespace pb = poolshim::budget;

TEST(BudgetEnv, NumThreadsOverrideWins) {
  ASSERT_EQ(::setenv("POOLSHIM_NUM_THREADS", "3", 1), 0);
  poolshim::config::reload_for_testing();
  ASSERT_EQ(poolshim::config::options().num_threads, 3u);
  const pb::Budget& b = pb::current();
  EXPECT_EQ(b.threads, 3u);
  EXPECT_STREQ(b.source, "POOLSHIM_NUM_THREADS=3");
  // The machine's numbers are still gathered for the report.
  EXPECT_GE(b.affinity_cpus, 1u);
  // Cached: a later change of the environment does not move the budget.
  ::setenv("POOLSHIM_NUM_THREADS", "5", 1);
  EXPECT_EQ(&pb::current(), &b);
  EXPECT_EQ(pb::current().threads, 3u);
}
