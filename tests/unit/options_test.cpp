// The option table and its strict parsers (shim/config/options), and how diag/ writes the bad
// values config/ collected (shim/diag/log.cpp).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/options.h"
#include "diag/log.h"

using namespace poolshim::config;

TEST(Options, ThreadsAcceptsWholeNumbersInRange) {
  size_t v = 0;
  EXPECT_TRUE(parse_threads("1", &v));
  EXPECT_EQ(v, 1u);
  EXPECT_TRUE(parse_threads("4096", &v));
  EXPECT_EQ(v, 4096u);
  for (const char* bad :
       {"", "0", "-1", "+2", " 2", "2 ", "2x", "4097", "99999999999999999999", "0x10", "1.5"}) {
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

TEST(Options, OpenmpMode) {
  bool native = true;
  EXPECT_TRUE(parse_openmp("forward", &native));
  EXPECT_FALSE(native);
  EXPECT_TRUE(parse_openmp("shim", &native));
  EXPECT_TRUE(native);
  EXPECT_FALSE(parse_openmp("Shim ", &native));
  EXPECT_FALSE(parse_openmp("", &native));
  EXPECT_TRUE(native);  // left alone on bad text
}

// OMP_STACKSIZE's syntax as libgomp reads it (the shim's threads get that stack).
TEST(Options, StackSize) {
  size_t b = 7;
  EXPECT_TRUE(parse_stack_size("64M", &b));
  EXPECT_EQ(b, size_t{64} << 20);
  EXPECT_TRUE(parse_stack_size(" 512 ", &b));  // no suffix: kilobytes
  EXPECT_EQ(b, size_t{512} << 10);
  EXPECT_TRUE(parse_stack_size("3 g", &b));
  EXPECT_EQ(b, size_t{3} << 30);
  EXPECT_TRUE(parse_stack_size("100b", &b));
  EXPECT_EQ(b, size_t{100});
  EXPECT_TRUE(parse_stack_size("2k", &b));
  EXPECT_EQ(b, size_t{2048});
  b = 7;
  for (const char* bad :
       {"", " ", "M", "-1", "12X", "12MB", "1 2", "99999999999999999999", "18446744073709551615G"})
    EXPECT_FALSE(parse_stack_size(bad, &b)) << bad;
  EXPECT_FALSE(parse_stack_size(nullptr, &b));
  EXPECT_EQ(b, size_t{7});  // left alone on bad text
}

TEST(Options, DisableList) {
  unsigned m = 99;
  EXPECT_TRUE(parse_disable("executorch", &m));
  EXPECT_EQ(m, unsigned{kSurfaceExecutorch});
  EXPECT_TRUE(parse_disable("pthreadpool,executorch", &m));
  EXPECT_EQ(m, unsigned{kSurfaceExecutorch | kSurfacePthreadpool});
  EXPECT_TRUE(parse_disable("all", &m));
  EXPECT_EQ(m, unsigned{kSurfaceExecutorch | kSurfacePthreadpool | kSurfaceOpenmp});
  EXPECT_TRUE(parse_disable("OpenMP,pthreadpool", &m));
  EXPECT_EQ(m, unsigned{kSurfaceOpenmp | kSurfacePthreadpool});
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
  for (const char* bad : {"", "poolshim.log", " /tmp/x", "0", "./x"})
    EXPECT_FALSE(parse_log_file(bad)) << bad;
  std::string huge = "/" + std::string(5000, 'a');
  EXPECT_FALSE(parse_log_file(huge.c_str()));
}

std::string problems_text(const Options& o) {
  std::string all;
  for (size_t i = 0; i < o.problem_count; ++i) all += std::string(o.problems[i].line) + "\n";
  return all;
}

// Hostile values give one short line each: non-printable and non-UTF-8 bytes escaped, a long
// value cut with its length.
TEST(Options, ProblemsShowHostileValuesSafely) {
  std::string huge(4096, '7');
  setenv("POOLSHIM_NUM_THREADS", huge.c_str(), 1);
  setenv("POOLSHIM_LOG", "\xff\xfe\n", 1);
  reload_for_testing();
  std::string err = problems_text(options());
  unsetenv("POOLSHIM_NUM_THREADS");
  unsetenv("POOLSHIM_LOG");
  reload_for_testing();
  EXPECT_NE(
      err.find("invalid POOLSHIM_NUM_THREADS='777777777777777777777777777777777777777777777777"
               "... (4096 bytes)'"),
      std::string::npos)
      << err;
  EXPECT_NE(err.find("invalid POOLSHIM_LOG='\\xff\\xfe\\x0a'"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 2) << err;
  EXPECT_LT(err.size(), 400u);
}

// The messages of every row, exactly as docs/environment.md and tests/process/bad_input.py
// expect them: the row's "want" and "fallback", the default kept.
TEST(Options, InvalidEnvironmentKeepsDefaults) {
  setenv("POOLSHIM_NUM_THREADS", "lots", 1);
  setenv("POOLSHIM_LOG", "loud", 1);
  setenv("POOLSHIM_LOG_FILE", "x.log", 1);
  setenv("POOLSHIM_DISABLE", "everything", 1);
  setenv("POOLSHIM_GROUP", "a/b", 1);
  reload_for_testing();
  Options o = options();
  for (const char* v : {"POOLSHIM_NUM_THREADS", "POOLSHIM_LOG", "POOLSHIM_LOG_FILE",
                        "POOLSHIM_DISABLE", "POOLSHIM_GROUP"})
    unsetenv(v);
  reload_for_testing();
  EXPECT_EQ(o.num_threads, 0u);
  EXPECT_EQ(o.log_level, LogLevel::off);
  EXPECT_EQ(o.log_file, nullptr);
  EXPECT_EQ(o.disabled, 0u);
  EXPECT_EQ(o.group, nullptr);
  const std::string err = problems_text(o);
  EXPECT_EQ(
      err,
      "invalid POOLSHIM_NUM_THREADS='lots' (want a whole number from 1 to 4096 or cores); using "
      "the "
      "machine's budget\n"
      "invalid POOLSHIM_LOG='loud' (want off, warn, info or debug); using off\n"
      "invalid POOLSHIM_LOG_FILE='x.log' (want an absolute path); logging to stderr\n"
      "invalid POOLSHIM_DISABLE='everything' (want a comma list of executorch, pthreadpool, "
      "openmp, all); nothing disabled\n"
      "invalid POOLSHIM_GROUP='a/b' (want 1 to 64 of A-Z a-z 0-9 _ . -); not joining a group\n");
}

// config/ cannot log: diag/ writes its lines, once, with the warning prefix, on stderr even with
// logging off, before anything else it logs.
TEST(Options, DiagWritesTheProblemsOnceBeforeItsFirstLine) {
  setenv("POOLSHIM_DISABLE", "", 1);
  reload_for_testing();
  testing::internal::CaptureStderr();
  bool enabled = poolshim::diag::log_enabled(LogLevel::warn);
  poolshim::diag::log_enabled(LogLevel::warn);
  poolshim::diag::warn_once(poolshim::diag::LogSite::budget_above_cpus, "a test line");
  poolshim::diag::warn_once(poolshim::diag::LogSite::budget_above_cpus, "a test line again");
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("POOLSHIM_DISABLE");
  reload_for_testing();
  EXPECT_FALSE(enabled);
  EXPECT_EQ(err,
            "poolshim: warning: invalid POOLSHIM_DISABLE='' (want a comma list of executorch, "
            "pthreadpool, openmp, all); nothing disabled\n"
            "poolshim: warning: a test line\n");
}

TEST(Options, NumThreadsCores) {
  setenv("POOLSHIM_NUM_THREADS", "cores", 1);
  reload_for_testing();
  EXPECT_TRUE(options().num_threads_cores);
  EXPECT_EQ(options().num_threads, 0u);
  setenv("POOLSHIM_NUM_THREADS", "Cores", 1);  // exact word only: the one-line diagnostic
  reload_for_testing();
  EXPECT_FALSE(options().num_threads_cores);
  EXPECT_NE(problems_text(options()).find("(want a whole number from 1 to 4096 or cores)"),
            std::string::npos);
  unsetenv("POOLSHIM_NUM_THREADS");
  reload_for_testing();
}

TEST(Options, ValidEnvironmentIsRead) {
  setenv("POOLSHIM_NUM_THREADS", "3", 1);
  setenv("POOLSHIM_LOG", "warn", 1);
  setenv("POOLSHIM_DISABLE", "pthreadpool", 1);
  reload_for_testing();
  const Options& o = options();
  EXPECT_EQ(o.num_threads, 3u);
  EXPECT_EQ(o.log_level, LogLevel::warn);
  EXPECT_EQ(o.disabled, unsigned{kSurfacePthreadpool});
  unsetenv("POOLSHIM_NUM_THREADS");
  unsetenv("POOLSHIM_LOG");
  unsetenv("POOLSHIM_DISABLE");
  reload_for_testing();
}

TEST(Options, EveryRowIsComplete) {
  for (size_t i = 0; i < kOptionCount; ++i) {
    const Option& o = option_table()[i];
    EXPECT_EQ(std::string(o.name).rfind("POOLSHIM_", 0), 0u);
    for (const char* text : {o.default_text, o.help, o.want, o.fallback}) {
      ASSERT_NE(text, nullptr) << o.name;
      EXPECT_NE(text[0], '\0') << o.name;
    }
    EXPECT_NE(o.parse, nullptr) << o.name;
    EXPECT_EQ(find_option(o.name), &o);
  }
  EXPECT_EQ(find_option("POOLSHIM_NOPE"), nullptr);
  EXPECT_NE(
      std::string(find_option("POOLSHIM_NUM_THREADS")->want).find(std::to_string(kMaxThreads)),
      std::string::npos);
}

// The row's parser is the one that runs: each valid value lands in its field.
TEST(Options, EachRowParsesIntoItsField) {
  Options o;
  EXPECT_TRUE(find_option("POOLSHIM_NUM_THREADS")->parse("12", &o));
  EXPECT_TRUE(find_option("POOLSHIM_LOG")->parse("debug", &o));
  EXPECT_TRUE(find_option("POOLSHIM_LOG_FILE")->parse("/tmp/l", &o));
  EXPECT_TRUE(find_option("POOLSHIM_DISABLE")->parse("executorch", &o));
  EXPECT_TRUE(find_option("POOLSHIM_GROUP")->parse("g1", &o));
  EXPECT_EQ(o.num_threads, 12u);
  EXPECT_EQ(o.log_level, LogLevel::debug);
  EXPECT_STREQ(o.log_file, "/tmp/l");
  EXPECT_EQ(o.disabled, unsigned{kSurfaceExecutorch});
  EXPECT_STREQ(o.group, "g1");
  EXPECT_EQ(o.problem_count, 0u);
}

TEST(Options, GroupIsReadAndInvalidNamesAreRefused) {
  setenv("POOLSHIM_GROUP", "serve-1", 1);
  reload_for_testing();
  ASSERT_NE(options().group, nullptr);
  EXPECT_STREQ(options().group, "serve-1");
  setenv("POOLSHIM_GROUP", "../etc", 1);
  reload_for_testing();
  EXPECT_EQ(options().group, nullptr);
  unsetenv("POOLSHIM_GROUP");
  reload_for_testing();
  EXPECT_EQ(options().group, nullptr);
}

// config/ depends on no other module, and it alone reads the environment.
TEST(Options, ConfigStandsAloneAndAloneReadsTheEnvironment) {
  namespace fs = std::filesystem;
  const fs::path shim = fs::path(POOLSHIM_TEST_DATA) / ".." / ".." / ".." / "shim";
  ASSERT_TRUE(fs::is_directory(shim / "config"));
  size_t config_files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(shim)) {
    const fs::path& p = entry.path();
    if (!entry.is_regular_file() || (p.extension() != ".cpp" && p.extension() != ".h")) continue;
    std::ifstream f(p);
    std::stringstream s;
    s << f.rdbuf();
    const std::string text = s.str();
    const bool in_config = p.parent_path().filename() == "config";
    if (in_config) {
      ++config_files;
      for (size_t at = text.find("#include \""); at != std::string::npos;
           at = text.find("#include \"", at + 1))
        EXPECT_EQ(text.compare(at + 10, 7, "config/"), 0) << p << " includes another module";
    } else {
      EXPECT_EQ(text.find("getenv("), std::string::npos) << p << " reads the environment";
    }
  }
  EXPECT_GE(config_files, 2u);
}
