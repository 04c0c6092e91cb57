// The option table and its strict parsers (shim/diag/options).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "diag/options.h"

using namespace poolshim::diag;

TEST(Options, ThreadsAcceptsWholeNumbersInRange) {
  size_t v = 0;
  EXPECT_TRUE(parse_threads("1", &v));
  EXPECT_EQ(v, 1u);
  EXPECT_TRUE(parse_threads("4096", &v));
  EXPECT_EQ(v, 4096u);
  for (const char* bad : {"", "0", "-1", "+2", " 2", "2 ", "2x", "4097", "99999999999999999999", "0x10", "1.5"}) {
    v = 7;
    EXPECT_FALSE(parse_threads(bad, &v)) << bad;
    EXPECT_EQ(v, 7u) << "a rejected value must leave the output alone: " << bad;
  }
}

TEST(Options, LogLevels) {
  LogLevel l = LogLevel::off;
  EXPECT_TRUE(parse_log_level("info", &l));
  EXPECT_EQ(l, LogLevel::info);
  EXPECT_TRUE(parse_log_level("DEBUG", &l));
  EXPECT_EQ(l, LogLevel::debug);
  EXPECT_TRUE(parse_log_level("off", &l));
  EXPECT_EQ(l, LogLevel::off);
  EXPECT_FALSE(parse_log_level("verbose", &l));
  EXPECT_FALSE(parse_log_level("", &l));
  EXPECT_FALSE(parse_log_level("2", &l));
}

TEST(Options, DisableList) {
  unsigned m = 99;
  EXPECT_TRUE(parse_disable("executorch", &m));
  EXPECT_EQ(m, unsigned{kSurfaceExecutorch});
  EXPECT_TRUE(parse_disable("pthreadpool,executorch", &m));
  EXPECT_EQ(m, unsigned{kSurfaceExecutorch | kSurfacePthreadpool});
  EXPECT_TRUE(parse_disable("all", &m));
  EXPECT_EQ(m, unsigned{kSurfaceExecutorch | kSurfacePthreadpool});
  m = 5;
  EXPECT_FALSE(parse_disable("executorch,", &m));
  EXPECT_FALSE(parse_disable("xnnpack", &m));
  EXPECT_FALSE(parse_disable(",", &m));
  EXPECT_FALSE(parse_disable("", &m)) << "set but empty is invalid, like every other variable";
  EXPECT_FALSE(parse_disable(" all", &m));
  EXPECT_EQ(m, 5u);
}

TEST(Options, LogFileMustBeAbsolute) {
  EXPECT_TRUE(parse_log_file("/tmp/poolshim.log"));
  for (const char* bad : {"", "poolshim.log", " /tmp/x", "0", "./x"}) EXPECT_FALSE(parse_log_file(bad)) << bad;
  std::string huge = "/" + std::string(5000, 'a');
  EXPECT_FALSE(parse_log_file(huge.c_str()));
}

// Hostile values give one short line each: non-printable and non-UTF-8 bytes escaped, a long
// value cut with its length.
TEST(Options, WarningShowsHostileValuesSafely) {
  std::string huge(4096, '7');
  setenv("POOLSHIM_NUM_THREADS", huge.c_str(), 1);
  setenv("POOLSHIM_LOG", "\xff\xfe\n", 1);
  testing::internal::CaptureStderr();
  reload_options_for_testing();
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("POOLSHIM_NUM_THREADS");
  unsetenv("POOLSHIM_LOG");
  reload_options_for_testing();
  EXPECT_NE(err.find("invalid POOLSHIM_NUM_THREADS='777777777777777777777777777777777777777777777777"
                     "... (4096 bytes)'"), std::string::npos) << err;
  EXPECT_NE(err.find("invalid POOLSHIM_LOG='\\xff\\xfe\\x0a'"), std::string::npos) << err;
  size_t lines = 0;
  for (char c : err) lines += c == '\n';
  EXPECT_EQ(lines, 2u) << err;
  EXPECT_LT(err.size(), 400u);
}

TEST(Options, InvalidEnvironmentKeepsDefaults) {
  setenv("POOLSHIM_NUM_THREADS", "lots", 1);
  setenv("POOLSHIM_LOG", "loud", 1);
  setenv("POOLSHIM_DISABLE", "everything", 1);
  testing::internal::CaptureStderr();
  reload_options_for_testing();
  std::string err = testing::internal::GetCapturedStderr();
  const Options& o = options();
  EXPECT_EQ(o.num_threads, 0u);
  EXPECT_EQ(o.log_level, LogLevel::off);
  EXPECT_EQ(o.disabled, 0u);
  // One warning line per bad value, even with logging off.
  EXPECT_NE(err.find("poolshim: warning: invalid POOLSHIM_NUM_THREADS='lots'"), std::string::npos) << err;
  EXPECT_NE(err.find("invalid POOLSHIM_LOG='loud'"), std::string::npos) << err;
  EXPECT_NE(err.find("invalid POOLSHIM_DISABLE='everything'"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 3) << err;
}

TEST(Options, ValidEnvironmentIsRead) {
  setenv("POOLSHIM_NUM_THREADS", "3", 1);
  setenv("POOLSHIM_LOG", "warn", 1);
  setenv("POOLSHIM_DISABLE", "pthreadpool", 1);
  reload_options_for_testing();
  const Options& o = options();
  EXPECT_EQ(o.num_threads, 3u);
  EXPECT_EQ(o.log_level, LogLevel::warn);
  EXPECT_EQ(o.disabled, unsigned{kSurfacePthreadpool});
  unsetenv("POOLSHIM_NUM_THREADS");
  unsetenv("POOLSHIM_LOG");
  unsetenv("POOLSHIM_DISABLE");
  reload_options_for_testing();
}

TEST(Options, TableListsEveryVariable) {
  int n = 0;
  for (const OptionInfo* o = option_table(); o->name; ++o) {
    EXPECT_EQ(std::string(o->name).rfind("POOLSHIM_", 0), 0u);
    EXPECT_NE(o->help, nullptr);
    ++n;
  }
  EXPECT_EQ(n, 5);
}

TEST(Options, GroupIsReadAndInvalidNamesAreRefused) {
  setenv("POOLSHIM_GROUP", "serve-1", 1);
  reload_options_for_testing();
  ASSERT_NE(options().group, nullptr);
  EXPECT_STREQ(options().group, "serve-1");
  setenv("POOLSHIM_GROUP", "../etc", 1);
  reload_options_for_testing();
  EXPECT_EQ(options().group, nullptr);
  unsetenv("POOLSHIM_GROUP");
  reload_options_for_testing();
  EXPECT_EQ(options().group, nullptr);
}
