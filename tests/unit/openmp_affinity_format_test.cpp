// The affinity format's expansion (shim/abi/openmp/runtime/affinity_format.h): every field by
// its letter and its long name, the three paddings, "%%", a CPU list as ranges, the length of a
// text that does not fit, and a malformed field written as text (libgomp stops the program).
#include <gtest/gtest.h>

#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include <string>

#include "abi/openmp/runtime/affinity_format.h"

namespace {

namespace rt = poolshim::abi::openmp::runtime;

std::string format(const char* fmt, const rt::AffinityInfo& info, bool* malformed = nullptr) {
  char buf[512];
  bool bad = false;
  size_t n = rt::format_affinity(buf, sizeof buf, fmt, info, &bad);
  if (malformed) *malformed = bad;
  return std::string(buf, n < sizeof buf ? n : sizeof buf);
}

rt::AffinityInfo sample(cpu_set_t* cpus) {
  CPU_ZERO(cpus);
  for (int c : {0, 1, 2, 3, 8, 10, 11}) CPU_SET(c, cpus);
  rt::AffinityInfo info;
  info.team_num = 1;
  info.num_teams = 2;
  info.level = 2;
  info.thread_num = 3;
  info.num_threads = 4;
  info.ancestor_tnum = 5;
  info.handle = 0xabc;
  info.cpus = cpus;
  return info;
}

TEST(OpenmpAffinityFormat, EveryFieldByLetterAndName) {
  cpu_set_t cpus;
  const rt::AffinityInfo info = sample(&cpus);
  EXPECT_EQ(format("%t %T %L %n %N %a %i %A", info), "1 2 2 3 4 5 0xabc 0-3,8,10-11");
  EXPECT_EQ(format("%{team_num} %{num_teams} %{nesting_level} %{thread_num} %{num_threads} "
                   "%{ancestor_tnum} %{native_thread_id} %{thread_affinity}",
                   info),
            "1 2 2 3 4 5 0xabc 0-3,8,10-11");
  EXPECT_EQ(format("%P", info), std::to_string(getpid()));
  EXPECT_EQ(format("%{process_id}", info), std::to_string(getpid()));
  EXPECT_FALSE(format("%H", info).empty());
  EXPECT_EQ(format("100%% of %N", info), "100% of 4");
}

TEST(OpenmpAffinityFormat, Padding) {
  cpu_set_t cpus;
  rt::AffinityInfo info = sample(&cpus);
  EXPECT_EQ(format("[%4n]", info), "[3   ]");
  EXPECT_EQ(format("[%.4n]", info), "[   3]");
  EXPECT_EQ(format("[%0.4n]", info), "[0003]");
  EXPECT_EQ(format("[%0.7i]", info), "[0x00abc]");
  EXPECT_EQ(format("[%.12A]", info), "[ 0-3,8,10-11]");
  EXPECT_EQ(format("[%12A]", info), "[0-3,8,10-11 ]");
  EXPECT_EQ(format("[%2N]", info), "[4 ]");
  info.ancestor_tnum = -1;
  EXPECT_EQ(format("[%0.4a]", info), "[-001]");
}

TEST(OpenmpAffinityFormat, LengthOfATextThatDoesNotFit) {
  cpu_set_t cpus;
  const rt::AffinityInfo info = sample(&cpus);
  char small[4];
  bool bad = false;
  EXPECT_EQ(rt::format_affinity(small, sizeof small, "level %L thread %n", info, &bad), 16u);
  EXPECT_EQ(std::string(small, 4), "leve");
  EXPECT_FALSE(bad);
}

TEST(OpenmpAffinityFormat, MalformedFieldIsText) {
  cpu_set_t cpus;
  const rt::AffinityInfo info = sample(&cpus);
  bool bad = false;
  EXPECT_EQ(format("a %q b %n", info, &bad), "a %q b 3");
  EXPECT_TRUE(bad);
  EXPECT_EQ(format("%{nope} %n", info, &bad), "%{nope} 3");
  EXPECT_TRUE(bad);
  EXPECT_EQ(format("%.n", info, &bad), "%.n");  // right justification needs a size
  EXPECT_TRUE(bad);
  EXPECT_EQ(format("%-3L", info, &bad), "%-3L");
  EXPECT_TRUE(bad);
  EXPECT_EQ(format("end %", info, &bad), "end %");
  EXPECT_TRUE(bad);
}

}  // namespace
