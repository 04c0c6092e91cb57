// read_cgroup_limit() on fixture trees (tests/unit/data/cgroup/<case>/proc/self/{cgroup,mountinfo}
// and .../sys/fs/cgroup/...), read through the sysfs seam's root prefix.
#include "budget/cgroup.h"

#include <gtest/gtest.h>

#include <string>
#include <sys/stat.h>

#include "budget/sysfs.h"
#include "sysfs_testing.h"

namespace pb = poolshim::budget;
using pb::CgroupVersion;

namespace {

std::string case_root(const char* name) { return poolshim::testing::sysfs_fixture(name); }

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

// Reads the limit of one fixture case. The case directory must exist, so a renamed or missing
// fixture fails loudly instead of passing as "no limit".
pb::CgroupLimit read_case(const char* name) {
  std::string root = case_root(name);
  EXPECT_TRUE(exists(root)) << root;
  poolshim::testing::ScopedSysfsRoot scoped(root);
  return pb::read_cgroup_limit();
}

std::string detail(const pb::CgroupLimit& l) {
  char buf[160];
  pb::describe_detail(l, buf, sizeof(buf));
  return buf;
}

std::string limit_text(const pb::CgroupLimit& l) {
  char buf[160];
  pb::describe_limit(l, buf, sizeof(buf));
  return buf;
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Cgroup, V2LimitOnParentOnly) {
  auto l = read_case("v2_parent_limit");
  EXPECT_EQ(l.version, CgroupVersion::v2);
  EXPECT_EQ(l.quota, 150000u);
  EXPECT_EQ(l.period, 100000u);
  EXPECT_EQ(l.cpus, 2u);  // 1.5 CPUs rounds up
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup/user.slice");
  EXPECT_EQ(l.problems, 0u);
  EXPECT_EQ(limit_text(l), "cgroup v2 cpu.max 150000 100000 at /sys/fs/cgroup/user.slice");
}

TEST(Cgroup, V2TightestAncestorWinsByExactRatio) {
  // Limits 3.0 (own), 1.5 (parent), 1.2 (grandparent): the grandparent binds, though it rounds
  // to the same 2 CPUs as the parent met first on the way up.
  auto l = read_case("v2_tightest");
  EXPECT_EQ(l.cpus, 2u);
  EXPECT_EQ(l.quota, 120000u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup/a");
}

TEST(Cgroup, V2OwnCgroupTightestAndTinyQuotaIsOneCpu) {
  auto l = read_case("v2_child_tightest");
  EXPECT_EQ(l.cpus, 1u);
  EXPECT_EQ(l.quota, 5000u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup/svc/worker");
}

TEST(Cgroup, V2MaxIsNoLimit) {
  auto l = read_case("v2_max");
  EXPECT_EQ(l.version, CgroupVersion::none);
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_EQ(l.problems, 0u);
  EXPECT_EQ(detail(l), "no cgroup cpu limit (checked v2 /sys/fs/cgroup/app and parents)");
}

TEST(Cgroup, V1CpuCpuacctWithParentLimitIgnoresCpuset) {
  // cpuset carries a decoy quota of 0.1 CPU: matching "cpu" as a substring would pick it.
  auto l = read_case("v1_cpu_cpuacct");
  EXPECT_EQ(l.version, CgroupVersion::v1);
  EXPECT_EQ(l.cpus, 3u);
  EXPECT_EQ(l.quota, 250000u);
  EXPECT_EQ(l.period, 100000u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup/cpu,cpuacct/user.slice");
  EXPECT_EQ(l.problems, 0u);
  EXPECT_EQ(limit_text(l),
            "cgroup v1 cpu.cfs_quota_us 250000 cpu.cfs_period_us 100000 at "
            "/sys/fs/cgroup/cpu,cpuacct/user.slice");
}

TEST(Cgroup, V1MinusOneIsNoLimit) {
  auto l = read_case("v1_unlimited");
  EXPECT_EQ(l.version, CgroupVersion::none);
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_EQ(l.problems, 0u);
  EXPECT_TRUE(contains(detail(l), "v1 /sys/fs/cgroup/cpu,cpuacct/job")) << detail(l);
}

TEST(Cgroup, ContainerV2MountRootIsTheOwnCgroup) {
  // mountinfo root "/docker/abc123" mounted at /sys/fs/cgroup: the process's directory is the
  // mount point. Joining the full cgroup path would find the decoy (0.5 CPU) instead. The
  // mountinfo also starts with an overlay line longer than the line reader's buffer.
  auto l = read_case("container_v2");
  EXPECT_EQ(l.version, CgroupVersion::v2);
  EXPECT_EQ(l.cpus, 2u);
  EXPECT_EQ(l.quota, 200000u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup");
  EXPECT_EQ(l.problems, 0u);
}

TEST(Cgroup, ContainerV1MountRootIsTheOwnCgroup) {
  auto l = read_case("container_v1");
  EXPECT_EQ(l.version, CgroupVersion::v1);
  EXPECT_EQ(l.cpus, 3u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup/cpu,cpuacct");
}

TEST(Cgroup, CgroupOutsideMountRootFallsBackToMountPoint) {
  auto l = read_case("outside_root");
  EXPECT_EQ(l.cpus, 1u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup");
  EXPECT_TRUE(contains(l.checked, "outside the mount's root")) << l.checked;
}

TEST(Cgroup, HybridTakesTightestOfBothAndStopsAtMountPoint) {
  // v1 cpu: 1.0 CPU; v2 (unified, at /sys/fs/cgroup/unified): 3.0. A decoy cpu.max of 0.1 CPU
  // sits at /sys/fs/cgroup, above the v2 mount point, and must not be read.
  auto l = read_case("hybrid");
  EXPECT_EQ(l.version, CgroupVersion::v1);
  EXPECT_EQ(l.cpus, 1u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup/cpu,cpuacct/user.slice");
  EXPECT_TRUE(contains(l.checked, "v2 /sys/fs/cgroup/unified/user.slice/s.scope")) << l.checked;
  EXPECT_TRUE(contains(l.checked, "v1 /sys/fs/cgroup/cpu,cpuacct/user.slice")) << l.checked;
}

TEST(Cgroup, GarbageIsIgnoredAndParentLimitStillApplies) {
  auto l = read_case("garbage");
  EXPECT_EQ(l.cpus, 3u);
  EXPECT_STREQ(l.dir, "/sys/fs/cgroup/a");
  EXPECT_EQ(l.problems, 1u);
  EXPECT_STREQ(l.problem, "/sys/fs/cgroup/a/app/cpu.max: not a number ('lots of cpu')");
  EXPECT_TRUE(contains(detail(l), "; ignored: /sys/fs/cgroup/a/app/cpu.max")) << detail(l);
}

TEST(Cgroup, ZeroPeriodIsIgnoredWithReason) {
  auto l = read_case("zero_period");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_EQ(l.version, CgroupVersion::none);
  EXPECT_EQ(detail(l),
            "no cgroup limit applied: /sys/fs/cgroup/app/cpu.max: zero period ('100000 0')");
}

TEST(Cgroup, OverflowIsIgnoredWithReason) {
  auto l = read_case("overflow");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_TRUE(contains(l.problem, "number too large")) << l.problem;
}

TEST(Cgroup, TrailingTextIsIgnoredWithReason) {
  auto l = read_case("trailing_text");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_TRUE(contains(l.problem, "unexpected text")) << l.problem;
}

TEST(Cgroup, V1ZeroPeriodIsIgnoredWithReason) {
  auto l = read_case("v1_zero_period");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_STREQ(l.problem, "/sys/fs/cgroup/cpu,cpuacct/job/cpu.cfs_period_us: zero period ('0')");
}

TEST(Cgroup, UnreadableFileIsIgnoredWithReason) {
  auto l = read_case("unreadable");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_TRUE(contains(l.problem, "cannot read /sys/fs/cgroup/app/cpu.max")) << l.problem;
}

TEST(Cgroup, MissingMountinfoGivesNoLimitAndSaysWhy) {
  auto l = read_case("missing_mountinfo");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_TRUE(contains(l.problem, "cannot read /proc/self/mountinfo")) << l.problem;
  EXPECT_TRUE(contains(detail(l), "no cgroup limit applied")) << detail(l);
}

TEST(Cgroup, MissingProcGivesNoLimitAndSaysWhy) {
  auto l = read_case("missing_proc");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_TRUE(contains(l.problem, "cannot read /proc/self/cgroup")) << l.problem;
}

TEST(Cgroup, CpuControllerNotMountedIsNoLimit) {
  auto l = read_case("no_cpu_mount");
  EXPECT_EQ(l.cpus, 0u);
  EXPECT_EQ(l.problems, 0u);
  EXPECT_EQ(detail(l), "no cgroup cpu limit (no cgroup hierarchy with the cpu controller mounted)");
}

TEST(Cgroup, RealMachineNeverFails) {
  // Whatever this machine has, reading it terminates with a consistent answer.
  pb::sysfs::set_root_for_testing("");
  auto l = pb::read_cgroup_limit();
  if (l.version == CgroupVersion::none) {
    EXPECT_EQ(l.cpus, 0u);
  } else {
    EXPECT_GE(l.cpus, 1u);
    EXPECT_GT(l.period, 0u);
    EXPECT_EQ(l.dir[0], '/');
  }
}
