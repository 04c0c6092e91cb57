// The pthreadpool surface of libpoolshim.so is exactly the 58 public functions of upstream's 2025
// header: all exported (nm -D --defined-only), nothing else named pthreadpool_*, each one listed
// in docs/pthreadpool-coverage.md.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "shim_exports.h"

namespace {

// The table the shim's surface is defined by (shim/symbols/pthreadpool.def).
const char* const kApi[] = {
#define X(ident) "pthreadpool_" #ident,
#include "symbols/pthreadpool.def"
#undef X
};

std::set<std::string> exported_pthreadpool_functions() {
  std::set<std::string> names;
  for (const auto& [name, type] : shim_dynamic_exports()) {
    if (name.rfind("pthreadpool_", 0) != 0) continue;
    EXPECT_EQ(type, "T") << name << " should be a function";
    names.insert(name);
  }
  return names;
}

TEST(PthreadpoolExports, ExactlyTheFiftyEightFunctions) {
  std::set<std::string> want(std::begin(kApi), std::end(kApi));
  ASSERT_EQ(want.size(), 58u);
  std::set<std::string> have = exported_pthreadpool_functions();
  ASSERT_FALSE(have.empty()) << "could not read the exports of libpoolshim.so";
  for (const std::string& s : want) EXPECT_TRUE(have.count(s)) << "not exported: " << s;
  for (const std::string& s : have)
    EXPECT_TRUE(want.count(s)) << "exported but not in the API: " << s;
}

TEST(PthreadpoolExports, CoverageTableListsEachFunctionOnce) {
  std::ifstream f(std::string(POOLSHIM_TEST_DATA) + "/../../../docs/pthreadpool-coverage.md");
  ASSERT_TRUE(f.good());
  std::set<std::string> rows;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("| `pthreadpool_", 0) != 0) continue;
    std::string name = line.substr(3, line.find('`', 3) - 3);
    EXPECT_TRUE(rows.insert(name).second) << "listed twice: " << name;
  }
  std::set<std::string> want(std::begin(kApi), std::end(kApi));
  EXPECT_EQ(rows, want);
}

}  // namespace
