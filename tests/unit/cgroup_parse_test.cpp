// The cgroup text parsers on literal strings (shim/budget/cgroup_parse.h).
#include "budget/cgroup_parse.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace pb = poolshim::budget;
using pb::Quota;

namespace {

pb::ProcCgroupEntry proc_line(const char* line, bool* ok) {
  pb::ProcCgroupEntry e;
  *ok = pb::parse_proc_cgroup_line(line, std::strlen(line), &e);
  return e;
}

std::string path_of(const pb::ProcCgroupEntry& e) { return std::string(e.path, e.path_len); }

}  // namespace

TEST(CgroupParse, TokenMatchesWholeListItemsOnly) {
  const char* list = "cpuacct,cpu";
  EXPECT_TRUE(pb::has_token(list, std::strlen(list), "cpu"));
  EXPECT_TRUE(pb::has_token(list, std::strlen(list), "cpuacct"));
  EXPECT_FALSE(pb::has_token("cpuset", 6, "cpu"));
  EXPECT_FALSE(pb::has_token("cpuacct", 7, "cpu"));
  EXPECT_TRUE(pb::has_token("rw,nosuid,cpu,cpuacct", 21, "cpu"));
  EXPECT_FALSE(pb::has_token("", 0, "cpu"));
}

TEST(CgroupParse, ProcCgroupV2Line) {
  bool ok = false;
  auto e = proc_line("0::/user.slice/app.scope\n", &ok);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(e.v2);
  EXPECT_FALSE(e.cpu);
  EXPECT_EQ(path_of(e), "/user.slice/app.scope");  // the newline is not part of the path
}

TEST(CgroupParse, ProcCgroupV1ControllersInAnyOrder) {
  bool ok = false;
  auto a = proc_line("4:cpu,cpuacct:/job", &ok);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(a.cpu);
  EXPECT_FALSE(a.v2);
  auto b = proc_line("4:cpuacct,cpu:/job", &ok);
  ASSERT_TRUE(ok);
  EXPECT_TRUE(b.cpu);
  auto c = proc_line("3:cpuset:/", &ok);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(c.cpu);
  auto d = proc_line("1:name=systemd:/user.slice", &ok);
  ASSERT_TRUE(ok);
  EXPECT_FALSE(d.cpu);
  EXPECT_FALSE(d.v2);
  // Hierarchy 0 with controllers is not v2; hierarchy 10 with none is not v2 either.
  EXPECT_FALSE(proc_line("10::/x", &ok).v2);
}

TEST(CgroupParse, ProcCgroupPathMayContainColons) {
  bool ok = false;
  auto e = proc_line("0::/a:b/c", &ok);
  ASSERT_TRUE(ok);
  EXPECT_EQ(path_of(e), "/a:b/c");
}

TEST(CgroupParse, ProcCgroupMalformedLines) {
  bool ok = true;
  proc_line("garbage", &ok);
  EXPECT_FALSE(ok);
  proc_line("0:/only-one-colon", &ok);
  EXPECT_FALSE(ok);
  proc_line("0::", &ok);
  EXPECT_FALSE(ok);
  proc_line("0::relative", &ok);
  EXPECT_FALSE(ok);
}

TEST(CgroupParse, MountinfoWithOptionalFields) {
  char line[] =
      "25 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev shared:4 master:1 - cgroup2 cgroup2 "
      "rw,nsdelegate";
  pb::MountEntry m;
  ASSERT_TRUE(pb::parse_mountinfo_line(line, &m));
  EXPECT_STREQ(m.root, "/");
  EXPECT_STREQ(m.mount_point, "/sys/fs/cgroup");
  EXPECT_STREQ(m.fstype, "cgroup2");
  EXPECT_STREQ(m.super_options, "rw,nsdelegate");
}

TEST(CgroupParse, MountinfoWithoutOptionalFieldsAndV1Options) {
  char line[] = "31 25 0:30 /docker/x /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct";
  pb::MountEntry m;
  ASSERT_TRUE(pb::parse_mountinfo_line(line, &m));
  EXPECT_STREQ(m.root, "/docker/x");
  EXPECT_STREQ(m.mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_STREQ(m.fstype, "cgroup");
  EXPECT_STREQ(m.super_options, "rw,cpu,cpuacct");
}

TEST(CgroupParse, MountinfoUnescapesRootAndMountPoint) {
  char line[] = "40 1 0:26 /a\\040b /mnt/my\\040cgroup\\134x rw - cgroup2 none rw";
  pb::MountEntry m;
  ASSERT_TRUE(pb::parse_mountinfo_line(line, &m));
  EXPECT_STREQ(m.root, "/a b");
  EXPECT_STREQ(m.mount_point, "/mnt/my cgroup\\x");
}

TEST(CgroupParse, MountinfoMalformed) {
  char no_separator[] = "25 24 0:26 / /sys/fs/cgroup rw cgroup2 cgroup2 rw";
  char too_short[] = "25 24 0:26 /";
  char nothing_after_separator[] = "25 24 0:26 / /x rw - cgroup2";
  pb::MountEntry m;
  EXPECT_FALSE(pb::parse_mountinfo_line(no_separator, &m));
  EXPECT_FALSE(pb::parse_mountinfo_line(too_short, &m));
  EXPECT_FALSE(pb::parse_mountinfo_line(nothing_after_separator, &m));
}

TEST(CgroupParse, CpuMaxLimit) {
  uint64_t q = 0, p = 0;
  const char* why = "";
  ASSERT_EQ(pb::parse_cpu_max("150000 100000\n", &q, &p, &why), Quota::limit);
  EXPECT_EQ(q, 150000u);
  EXPECT_EQ(p, 100000u);
}

TEST(CgroupParse, CpuMaxUnlimited) {
  uint64_t q = 7, p = 7;
  const char* why = "";
  EXPECT_EQ(pb::parse_cpu_max("max 100000\n", &q, &p, &why), Quota::unlimited);
  EXPECT_EQ(pb::parse_cpu_max("max\n", &q, &p, &why), Quota::unlimited);
  EXPECT_EQ(q, 7u);  // untouched
}

TEST(CgroupParse, CpuMaxInvalid) {
  uint64_t q = 0, p = 0;
  const char* why = "";
  EXPECT_EQ(pb::parse_cpu_max("lots 100000", &q, &p, &why), Quota::invalid);
  EXPECT_STREQ(why, "not a number");
  EXPECT_EQ(pb::parse_cpu_max("100000 0", &q, &p, &why), Quota::invalid);
  EXPECT_STREQ(why, "zero period");
  EXPECT_EQ(pb::parse_cpu_max("0 100000", &q, &p, &why), Quota::invalid);
  EXPECT_STREQ(why, "zero quota");
  EXPECT_EQ(pb::parse_cpu_max("184467440737095516160 100000", &q, &p, &why), Quota::invalid);
  EXPECT_STREQ(why, "number too large");
  EXPECT_EQ(pb::parse_cpu_max("150000\n", &q, &p, &why), Quota::invalid);
  EXPECT_STREQ(why, "missing period");
  EXPECT_EQ(pb::parse_cpu_max("150000 100000 5", &q, &p, &why), Quota::invalid);
  EXPECT_EQ(pb::parse_cpu_max("-1 100000", &q, &p, &why), Quota::invalid);
  EXPECT_EQ(pb::parse_cpu_max("maximum 100000", &q, &p, &why), Quota::invalid);
  EXPECT_EQ(pb::parse_cpu_max("", &q, &p, &why), Quota::invalid);
  EXPECT_EQ(pb::parse_cpu_max("max 0", &q, &p, &why), Quota::invalid);
}

TEST(CgroupParse, CpuMaxLargestValues) {
  uint64_t q = 0, p = 0;
  const char* why = "";
  ASSERT_EQ(pb::parse_cpu_max("18446744073709551615 1", &q, &p, &why), Quota::limit);
  EXPECT_EQ(q, UINT64_MAX);
  EXPECT_EQ(pb::parse_cpu_max("18446744073709551616 1", &q, &p, &why), Quota::invalid);
}

TEST(CgroupParse, CfsQuotaAndPeriod) {
  uint64_t q = 0, p = 0;
  const char* why = "";
  EXPECT_EQ(pb::parse_cfs_quota("-1\n", &q, &why), Quota::unlimited);
  ASSERT_EQ(pb::parse_cfs_quota("250000\n", &q, &why), Quota::limit);
  EXPECT_EQ(q, 250000u);
  EXPECT_EQ(pb::parse_cfs_quota("-2\n", &q, &why), Quota::invalid);
  EXPECT_EQ(pb::parse_cfs_quota("-10\n", &q, &why), Quota::invalid);
  EXPECT_EQ(pb::parse_cfs_quota("0\n", &q, &why), Quota::invalid);
  EXPECT_EQ(pb::parse_cfs_quota("12abc", &q, &why), Quota::invalid);
  EXPECT_TRUE(pb::parse_cfs_period("100000\n", &p, &why));
  EXPECT_EQ(p, 100000u);
  EXPECT_FALSE(pb::parse_cfs_period("0\n", &p, &why));
  EXPECT_STREQ(why, "zero period");
  EXPECT_FALSE(pb::parse_cfs_period("x", &p, &why));
}

TEST(CgroupParse, QuotaCpusRoundsUpAndIsAtLeastOne) {
  EXPECT_EQ(pb::quota_cpus(150000, 100000), 2u);
  EXPECT_EQ(pb::quota_cpus(200000, 100000), 2u);
  EXPECT_EQ(pb::quota_cpus(200001, 100000), 3u);
  EXPECT_EQ(pb::quota_cpus(1000, 100000), 1u);
  // No overflow where (q + p - 1) / p would wrap.
  EXPECT_EQ(pb::quota_cpus(UINT64_MAX, UINT64_MAX - 1), 2u);
  EXPECT_EQ(pb::quota_cpus(UINT64_MAX, 1), static_cast<size_t>(UINT64_MAX));
}

TEST(CgroupParse, TighterComparesExactRatios) {
  EXPECT_TRUE(pb::tighter(120000, 100000, 150000, 100000));
  EXPECT_FALSE(pb::tighter(150000, 100000, 120000, 100000));
  EXPECT_FALSE(pb::tighter(100000, 100000, 200000, 200000));   // equal is not tighter
  EXPECT_TRUE(pb::tighter(50000, 50000, 300000, 100000));      // 1.0 < 3.0, different periods
  EXPECT_TRUE(pb::tighter(UINT64_MAX - 1, 1, UINT64_MAX, 1));  // no overflow
}

TEST(CgroupParse, RelativeCgroupPath) {
  char out[64];
  EXPECT_TRUE(pb::relative_cgroup_path("/a/b", "/", out, sizeof(out)));
  EXPECT_STREQ(out, "/a/b");
  EXPECT_TRUE(pb::relative_cgroup_path("/docker/abc", "/docker/abc", out, sizeof(out)));
  EXPECT_STREQ(out, "/");
  EXPECT_TRUE(pb::relative_cgroup_path("/docker/abc/sub", "/docker/abc", out, sizeof(out)));
  EXPECT_STREQ(out, "/sub");
  // A prefix that is not a whole path component does not count.
  EXPECT_FALSE(pb::relative_cgroup_path("/docker/abcdef", "/docker/abc", out, sizeof(out)));
  EXPECT_STREQ(out, "/");
  EXPECT_FALSE(pb::relative_cgroup_path("/other", "/docker/abc", out, sizeof(out)));
  EXPECT_STREQ(out, "/");
  EXPECT_FALSE(pb::relative_cgroup_path("/../../x", "/", out, sizeof(out)));
  EXPECT_STREQ(out, "/");
  // Too long for the buffer: fall back rather than truncate.
  char small[4];
  EXPECT_FALSE(pb::relative_cgroup_path("/abcdef", "/", small, sizeof(small)));
  EXPECT_STREQ(small, "/");
}
