// The budget rules as a pure function (shim/budget/compute.h), including the exact source strings.
#include "budget/compute.h"

#include <gtest/gtest.h>

#include <string>

#include "base/text.h"
#include "budget/cgroup_parse.h"
#include "budget/sysfs.h"
#include "sysfs_testing.h"

namespace pb = poolshim::budget;

namespace {

pb::CgroupLimit v2_limit(uint64_t quota, uint64_t period, const char* dir) {
  pb::CgroupLimit l;
  l.version = pb::CgroupVersion::v2;
  l.quota = quota;
  l.period = period;
  l.cpus = pb::quota_cpus(quota, period);
  poolshim::base::Text(l.dir).append(dir);
  return l;
}

pb::Budget compute(size_t env, size_t affinity, const pb::CgroupLimit* cg, size_t online = 64) {
  pb::Inputs in;
  in.env_threads = env;
  in.affinity_cpus = affinity;
  in.online_cpus = online;
  in.cgroup = cg;
  return pb::compute_budget(in);
}

}  // namespace

TEST(Budget, AffinityMaskWithoutCgroupLimit) {
  pb::CgroupLimit none;
  auto b = compute(0, 6, &none);
  EXPECT_EQ(b.threads, 6u);
  EXPECT_STREQ(b.source, "affinity mask (6 CPUs)");
  EXPECT_EQ(b.affinity_cpus, 6u);
  EXPECT_EQ(b.cgroup_cpus, 0u);
  EXPECT_EQ(b.online_cpus, 64u);
}

// libgomp pinned the initial thread to place 0 (OMP_PROC_BIND): the process's CPUs, and the
// source says where they came from.
TEST(Budget, MaskFromBeforeLibgompsPin) {
  pb::Inputs in;
  in.affinity_cpus = 4;
  in.online_cpus = 4;
  in.mask_before_pin = true;
  auto b = pb::compute_budget(in);
  EXPECT_EQ(b.threads, 4u);
  EXPECT_STREQ(b.source,
               "affinity mask (4 CPUs, OpenMP's places: the initial thread is bound to place 0)");
}

TEST(Budget, SingleCpuIsSingular) {
  auto b = compute(0, 1, nullptr);
  EXPECT_STREQ(b.source, "affinity mask (1 CPU)");
}

TEST(Budget, CgroupLimitBelowAffinityWins) {
  auto cg = v2_limit(150000, 100000, "/sys/fs/cgroup/user.slice");
  auto b = compute(0, 8, &cg);
  EXPECT_EQ(b.threads, 2u);
  EXPECT_STREQ(b.source, "cgroup v2 cpu.max 150000 100000 at /sys/fs/cgroup/user.slice (2 CPUs)");
  EXPECT_EQ(b.cgroup_cpus, 2u);
  EXPECT_STREQ(b.cgroup_detail, "cgroup v2 cpu.max 150000 100000 at /sys/fs/cgroup/user.slice");
}

TEST(Budget, AffinityBelowCgroupLimitWins) {
  auto cg = v2_limit(800000, 100000, "/sys/fs/cgroup/a");
  auto b = compute(0, 3, &cg);
  EXPECT_EQ(b.threads, 3u);
  EXPECT_STREQ(b.source, "affinity mask (3 CPUs)");
  EXPECT_EQ(b.cgroup_cpus, 8u);  // still reported
}

TEST(Budget, TieKeepsAffinityAsSource) {
  auto cg = v2_limit(200000, 100000, "/sys/fs/cgroup/a");
  auto b = compute(0, 2, &cg);
  EXPECT_EQ(b.threads, 2u);
  EXPECT_STREQ(b.source, "affinity mask (2 CPUs)");
}

TEST(Budget, EnvOverrideWinsOverEverything) {
  auto cg = v2_limit(100000, 100000, "/sys/fs/cgroup/a");
  auto b = compute(3, 8, &cg);
  EXPECT_EQ(b.threads, 3u);
  EXPECT_STREQ(b.source, "POOLSHIM_NUM_THREADS=3");
  // Larger than the machine is allowed: the user asked for it.
  auto big = compute(32, 2, &cg);
  EXPECT_EQ(big.threads, 32u);
  EXPECT_STREQ(big.source, "POOLSHIM_NUM_THREADS=32");
  EXPECT_EQ(big.cgroup_cpus, 1u);  // what the machine would have allowed is still recorded
}

TEST(Budget, CoresIsOnePerPhysicalCoreNeverAboveTheMachine) {
  pb::CgroupLimit none;
  pb::Inputs in;
  in.env_cores = 4;  // 8 CPUs, 2 threads a core
  in.affinity_cpus = 8;
  in.online_cpus = 8;
  in.cgroup = &none;
  auto b = pb::compute_budget(in);
  EXPECT_EQ(b.threads, 4u);
  EXPECT_STREQ(b.source, "POOLSHIM_NUM_THREADS=cores (4 physical cores)");
  auto cg = v2_limit(300000, 100000, "/sys/fs/cgroup/a");  // 3 CPUs of quota
  in.cgroup = &cg;
  EXPECT_EQ(pb::compute_budget(in).threads, 3u);
  in.env_cores = 0;  // topology unreadable: the machine's budget
  in.cgroup = &none;
  EXPECT_EQ(pb::compute_budget(in).threads, 8u);
}

TEST(Budget, UnreadableAffinityFallsBackToOnlineThenOne) {
  auto b = compute(0, 0, nullptr, 12);
  EXPECT_EQ(b.threads, 12u);
  EXPECT_STREQ(b.source, "online CPUs (12 CPUs; affinity mask unreadable)");
  auto one = compute(0, 0, nullptr, 0);
  EXPECT_EQ(one.threads, 1u);
  EXPECT_STREQ(one.source,
               "default (1 thread: neither the affinity mask nor the CPU count could be read)");
  // A cgroup limit still caps the fallback.
  auto cg = v2_limit(400000, 100000, "/sys/fs/cgroup/a");
  EXPECT_EQ(compute(0, 0, &cg, 12).threads, 4u);
}

TEST(Budget, NoCgroupConsulted) {
  auto b = compute(0, 4, nullptr);
  EXPECT_EQ(b.threads, 4u);
  EXPECT_STREQ(b.cgroup_detail, "cgroup not consulted");
}

TEST(Budget, FromFixtureTreeEndToEnd) {
  // The cgroup part read from a fixture, then the rules: 8 CPUs in the mask, 1.5 CPUs of quota
  // on the parent cgroup -> 2 threads, and the source says exactly where that came from.
  pb::CgroupLimit cg;
  {
    poolshim::testing::ScopedSysfsRoot root(poolshim::testing::sysfs_fixture("v2_parent_limit"));
    ASSERT_TRUE(root.ok());
    cg = pb::read_cgroup_limit();
  }
  auto b = compute(0, 8, &cg);
  EXPECT_EQ(b.threads, 2u);
  EXPECT_STREQ(b.source, "cgroup v2 cpu.max 150000 100000 at /sys/fs/cgroup/user.slice (2 CPUs)");
}

TEST(Budget, FromFixtureWithProblemKeepsReasonInDetail) {
  pb::CgroupLimit cg;
  {
    poolshim::testing::ScopedSysfsRoot root(poolshim::testing::sysfs_fixture("zero_period"));
    ASSERT_TRUE(root.ok());
    cg = pb::read_cgroup_limit();
  }
  auto b = compute(0, 4, &cg);
  EXPECT_EQ(b.threads, 4u);
  EXPECT_STREQ(b.source, "affinity mask (4 CPUs)");
  EXPECT_STREQ(b.cgroup_detail,
               "no cgroup limit applied: /sys/fs/cgroup/app/cpu.max: zero period ('100000 0')");
}

TEST(Budget, LongPathsAreTruncatedNotOverflowed) {
  std::string dir = "/sys/fs/cgroup/" + std::string(900, 'x');
  auto cg = v2_limit(100000, 100000, dir.c_str());
  auto b = compute(0, 8, &cg);
  EXPECT_EQ(b.threads, 1u);
  EXPECT_LT(std::string(b.source).size(), sizeof(b.source));
  EXPECT_EQ(std::string(b.source).rfind("cgroup v2 cpu.max 100000 100000 at /sys/fs/cgroup/x", 0),
            0u);
}
