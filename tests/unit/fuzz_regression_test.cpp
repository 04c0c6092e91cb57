// Inputs that scripts/fuzz.sh found to break a parser, each kept as a unit test over the exact
// input (also committed to the target's seed corpus, tests/fuzz/<target>/regression_*).
#include <gtest/gtest.h>

#include <string>

#include "budget/cgroup_parse.h"

using namespace poolshim::budget;

// cgroup_parse: relative_cgroup_path with a mount root of "/" copied a cgroup path that does not
// start with '/' as it was; the caller appends it to the mount point ("/sys/fs/cgroupabc").
// Fuzz input: "\x06\xa3dock\xa1\x8d\xd0\x9e\x9dr/ab\xd0" (no '\n': mount root "/").
TEST(FuzzRegression, RelativeCgroupPathAlwaysStartsWithSlash) {
  const std::string path =
      "\xa3"
      "dock\xa1\x8d\xd0\x9e\x9dr/ab\xd0";
  char out[64] = "unset";
  EXPECT_FALSE(relative_cgroup_path(path.c_str(), "/", out, sizeof out));
  EXPECT_STREQ(out, "/");
  EXPECT_FALSE(relative_cgroup_path("abc", "", out, sizeof out));
  EXPECT_STREQ(out, "/");
  EXPECT_TRUE(relative_cgroup_path("/abc", "/", out, sizeof out));
  EXPECT_STREQ(out, "/abc");
}
