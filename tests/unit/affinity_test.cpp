// CPUs in the affinity mask (with > 1024 CPUs) and the online CPU list (shim/budget/affinity.h).
#include "budget/affinity.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <thread>

#include "budget/sysfs.h"
#include "sysfs_testing.h"

namespace pb = poolshim::budget;

namespace {

// A kernel with 4096 possible CPUs, of which CPUs 0..2999 and 4095 are in the mask: it refuses
// (EINVAL) any mask smaller than its own, as Linux does.
constexpr size_t kKernelCpus = 4096;
size_t g_calls = 0;
int big_machine(pid_t, size_t setsize, cpu_set_t* set) {
  ++g_calls;
  if (setsize < CPU_ALLOC_SIZE(kKernelCpus)) {
    errno = EINVAL;
    return -1;
  }
  CPU_ZERO_S(setsize, set);
  for (size_t i = 0; i < 3000; ++i) CPU_SET_S(i, setsize, set);
  CPU_SET_S(kKernelCpus - 1, setsize, set);
  return 0;
}

int always_einval(pid_t, size_t, cpu_set_t*) {
  errno = EINVAL;
  return -1;
}

int eperm(pid_t, size_t, cpu_set_t*) {
  errno = EPERM;
  return -1;
}

}  // namespace

TEST(Affinity, MatchesTheKernelMask) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  EXPECT_EQ(pb::affinity_cpus(), static_cast<size_t>(CPU_COUNT(&set)));
  EXPECT_GE(pb::affinity_cpus(), 1u);
}

TEST(Affinity, FollowsARestrictedMask) {
  // Pin a thread to one CPU: the count it sees must be 1, not the machine's.
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  int first = -1;
  for (int i = 0; i < CPU_SETSIZE && first < 0; ++i)
    if (CPU_ISSET(i, &set)) first = i;
  ASSERT_GE(first, 0);
  size_t seen = 0;
  std::thread t([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (sched_setaffinity(0, sizeof(one), &one) == 0) seen = pb::affinity_cpus();
  });
  t.join();
  EXPECT_EQ(seen, 1u);
}

TEST(Affinity, MoreThan1024Cpus) {
  g_calls = 0;
  EXPECT_EQ(pb::affinity_cpus(big_machine), 3001u);
  EXPECT_GE(g_calls, 3u);  // 1024 refused, 2048 refused, 4096 accepted
}

TEST(Affinity, FailuresGiveZeroAndTerminate) {
  EXPECT_EQ(pb::affinity_cpus(eperm), 0u);
  EXPECT_EQ(pb::affinity_cpus(always_einval), 0u);
}

TEST(Affinity, ParseCpuList) {
  EXPECT_EQ(pb::parse_cpu_list("0\n"), 1u);
  EXPECT_EQ(pb::parse_cpu_list("0-3\n"), 4u);
  EXPECT_EQ(pb::parse_cpu_list("0-3,8,10-11\n"), 7u);
  EXPECT_EQ(pb::parse_cpu_list("0-4095"), 4096u);
  EXPECT_EQ(pb::parse_cpu_list(""), 0u);
  EXPECT_EQ(pb::parse_cpu_list("3-1"), 0u);
  EXPECT_EQ(pb::parse_cpu_list("0-"), 0u);
  EXPECT_EQ(pb::parse_cpu_list("a"), 0u);
  EXPECT_EQ(pb::parse_cpu_list("0,,1"), 0u);
  EXPECT_EQ(pb::parse_cpu_list("0-99999999999999999999"), 0u);
}

TEST(Affinity, OnlineCpusReadThroughTheSeam) {
  size_t n = 0;
  {
    poolshim::testing::ScopedSysfsRoot root(poolshim::testing::sysfs_fixture("cpu_online"));
    ASSERT_TRUE(root.ok());
    n = pb::online_cpus();
  }
  EXPECT_EQ(n, 7u);                  // "0-3,8,10-11"
  EXPECT_GE(pb::online_cpus(), 1u);  // the real machine
}
