// The OpenMP surface exports every row of shim/symbols/openmp.def as name@@version
// (the default) or name@version (an older binding), nothing else named GOMP_* or omp_*, and,
// when GCC's libgomp.so.1 is installed, exactly the host functions it exports with the same
// versions (OpenACC and the offload plugin interface left out), so that a module's versioned
// reference (GOMP_parallel@GOMP_4.0) finds the shim first.
#include <gtest/gtest.h>

#include <stdio.h>

#include <set>
#include <sstream>
#include <string>

#include "abi/openmp/entry.h"
#include "shim_exports.h"
#include "symbols/openmp_rows.h"

namespace {

std::set<std::string> table() {
  std::set<std::string> rows;
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) rows.insert(#name binding version);
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY
  return rows;
}

bool openmp_name(const std::string& s) {
  return s.rfind("GOMP_", 0) == 0 || s.rfind("omp_", 0) == 0;
}

std::set<std::string> shim_openmp() {
  std::set<std::string> names;
  for (const auto& e : shim_versioned_exports())
    if (openmp_name(e.first)) {
      EXPECT_EQ(e.second, "T") << e.first;
      names.insert(e.first);
    }
  return names;
}

// libgomp's host functions as `objdump -T` shows them: name@@version or, for an older
// binding, "(version)" -> name@version. Empty when libgomp.so.1 is not installed.
std::set<std::string> libgomp_host() {
  std::set<std::string> names;
  FILE* p = popen("objdump -T /usr/lib/x86_64-linux-gnu/libgomp.so.1 2>/dev/null", "r");
  if (p == nullptr) return names;
  char line[4096];
  while (fgets(line, sizeof line, p)) {
    std::istringstream in(line);
    std::string f, words[8];
    int n = 0;
    while (n < 8 && in >> words[n]) ++n;
    if (n < 7 || words[2] != "DF" || words[3] == "*UND*") continue;
    std::string version = words[n - 2], name = words[n - 1];
    if (!openmp_name(name) || name.rfind("GOMP_PLUGIN_", 0) == 0) continue;
    bool hidden = version.front() == '(';
    if (hidden) version = version.substr(1, version.size() - 2);
    names.insert(name + (hidden ? "@" : "@@") + version);
  }
  pclose(p);
  return names;
}

TEST(OpenmpExports, EveryRowWithItsVersionAndNothingElse) {
  std::set<std::string> have = shim_openmp(), want = table();
  ASSERT_EQ(want.size(), poolshim::symbols::openmp_rows::kCount) << "a row is listed twice";
  ASSERT_FALSE(have.empty()) << "no OpenMP symbol in " << shim_library_path();
  for (const std::string& s : want) EXPECT_TRUE(have.count(s)) << "not exported: " << s;
  for (const std::string& s : have) EXPECT_TRUE(want.count(s)) << "not in the table: " << s;
}

TEST(OpenmpExports, TheHostPartOfLibgomp) {
  std::set<std::string> gomp = libgomp_host();
  if (gomp.empty()) GTEST_SKIP() << "libgomp.so.1 or objdump not installed";
  std::set<std::string> have = shim_openmp();
  for (const std::string& s : gomp)
    EXPECT_TRUE(have.count(s)) << "libgomp exports, we do not: " << s;
  for (const std::string& s : have) EXPECT_TRUE(gomp.count(s)) << "libgomp does not export: " << s;
}

TEST(OpenmpExports, EntriesStartUnresolved) {
  // Linked into this test, no trampoline ran: every row still waits for its first call.
  namespace rows = poolshim::symbols::openmp_rows;
  for (size_t i = 0; i < rows::kCount; ++i)
    EXPECT_EQ(poolshim::abi::openmp::poolshim_omp_targets[i].load(), nullptr)
        << rows::name(i) << "@" << rows::version(i);
}

// The compile-time row table reads openmp.def's rows in order, names and versions alike.
TEST(OpenmpExports, RowTableMatchesTheDef) {
  namespace rows = poolshim::symbols::openmp_rows;
  struct Want {
    const char* name;
    const char* version;
  };
  static const Want kWant[] = {
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) {#name, version},
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY
  };
  ASSERT_EQ(sizeof kWant / sizeof kWant[0], rows::kCount);
  for (size_t i = 0; i < rows::kCount; ++i) {
    EXPECT_STREQ(rows::name(i), kWant[i].name) << i;
    EXPECT_STREQ(rows::version(i), kWant[i].version) << i;
  }
  EXPECT_EQ(rows::row_of("GOMP_parallel"), rows::row_of("GOMP_parallel", "GOMP_4.0"));
  EXPECT_EQ(rows::row_of("no_such_function"), rows::kCount);
}

}  // namespace
