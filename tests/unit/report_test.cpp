// The load-time report (report/report.h): nothing at all with logging off; with POOLSHIM_LOG=info,
// one line per module carrying a pool surface, each module once, modules loaded later on the
// next call. CTest runs each case in its own process; run together (the executable alone), they
// share the registry and the log sink, and give the same results in either order.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "config/options.h"
#include "report/report.h"
#include "reach/query.h"
#include "elf_test_util.h"

using namespace poolshim_elf_test;

namespace {

std::string g_log_path;

std::string read_log() {
  auto bytes = read_file(g_log_path);
  return std::string(bytes.begin(), bytes.end());
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ElfReport, OffMeansNoWorkAtAll) {
  unsetenv("POOLSHIM_LOG");
  poolshim::config::reload_for_testing();
  ASSERT_NE(dlopen(variant("variant_hidden.so").c_str(), RTLD_NOW | RTLD_LOCAL), nullptr);
  poolshim::report::report_modules_once();
  EXPECT_EQ(poolshim::reach::judged_count(), 0u) << "no module may be read when logging is off";
}

TEST(ElfReport, EachModuleOnceAndLateModulesOnTheNextCall) {
  char tmpl[] = "/tmp/poolshim_report_XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  g_log_path = tmpl;
  setenv("POOLSHIM_LOG", "info", 1);
  setenv("POOLSHIM_LOG_FILE", g_log_path.c_str(), 1);
  poolshim::config::reload_for_testing();

  ASSERT_NE(dlopen(variant("variant_hidden.so").c_str(), RTLD_NOW | RTLD_LOCAL), nullptr);
  // RTLD_LAZY: no preload here, so once bound its calls would resolve to its own copy; unbound,
  // it is judged from its ELF data (the prediction for a preloaded process).
  ASSERT_NE(dlopen(variant("variant_default.so").c_str(), RTLD_LAZY | RTLD_LOCAL), nullptr);
  poolshim::report::report_modules_once();
  std::string log = read_log();
  EXPECT_EQ(count(log, "variant_hidden.so: executorch unreachable (hidden copy)\n"), 1u) << log;
  EXPECT_EQ(count(log, "variant_default.so: executorch redirected\n"), 1u) << log;
  EXPECT_EQ(count(log, "poolshim: module "), 2u) << "only modules with a pool surface:\n" << log;

  poolshim::report::report_modules_once();
  EXPECT_EQ(read_log(), log) << "a module is reported once";

  ASSERT_NE(dlopen(variant("variant_ptp_symbolic_functions.so").c_str(), RTLD_NOW | RTLD_LOCAL),
            nullptr);
  poolshim::report::report_modules_once();
  std::string later = read_log();
  EXPECT_EQ(count(later, "poolshim: module "), 3u) << later;
  EXPECT_EQ(
      count(later, "variant_ptp_symbolic_functions.so: pthreadpool unreachable (bound locally"), 1u)
      << later;
  unlink(g_log_path.c_str());
}
