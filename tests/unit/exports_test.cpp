// libpoolshim.so exports exactly its API and the legacy ABIs: `nm -D --defined-only` against the
// allow-list in tests/unit/data/exports.allow (one name a line; '#' starts a comment). A symbol
// that leaks (say, a std:: template instantiation) or an ABI entry that disappears both fail.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "abi/executorch/symbols.h"
#include "shim_exports.h"

namespace {

std::set<std::string> exported() {
  std::set<std::string> names;
  for (const auto& entry : shim_dynamic_exports()) names.insert(entry.first);
  // Linker-defined markers, not part of any surface.
  for (const char* m : {"_init", "_fini", "__bss_start", "_edata", "_end"}) names.erase(m);
  return names;
}

std::set<std::string> allowed() {
  std::set<std::string> names;
  std::ifstream f(std::string(POOLSHIM_TEST_DATA) + "/exports.allow");
  std::string line;
  while (std::getline(f, line)) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream in(line);
    std::string name;
    if (in >> name) names.insert(name);
  }
  return names;
}

TEST(Exports, ExactlyTheAllowList) {
  std::set<std::string> have = exported(), want = allowed();
  ASSERT_FALSE(have.empty()) << "could not read the exports of " << shim_library_path();
  ASSERT_FALSE(want.empty()) << "could not read the allow-list";
  for (const std::string& s : have) EXPECT_TRUE(want.count(s)) << "exported but not allowed: " << s;
  for (const std::string& s : want) EXPECT_TRUE(have.count(s)) << "allowed but not exported: " << s;
}

TEST(Exports, EveryExecutorchTableRowIsExported) {
  std::set<std::string> have = exported();
  for (const auto& sym : poolshim::abi::kEtSymbols)
    EXPECT_TRUE(have.count(sym.mangled)) << sym.demangled;
}

}  // namespace
