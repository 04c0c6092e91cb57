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

// lifecycle/unwinder_on_demand.cpp: the unwinder is opened when an exception first needs it, so
// the library neither needs libgcc_s at load (no undefined _Unwind_* or GCC_* reference left for
// the dynamic linker) nor carries a static unwinder of its own (libgcc_eh's _Unwind_Find_FDE).
TEST(Exports, NoUnwinderAtLoadAndNoStaticCopy) {
  auto lines = [](const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) return out;
    char line[4096];
    while (fgets(line, sizeof line, p)) out += line;
    pclose(p);
    return out;
  };
  const std::string lib = "'" + shim_library_path() + "'";
  const std::string undefined = lines("nm -D --undefined-only " + lib + " 2>/dev/null");
  ASSERT_NE(undefined.find("GLIBC_"), std::string::npos) << "could not read " << lib;
  EXPECT_EQ(undefined.find("_Unwind_"), std::string::npos) << undefined;
  EXPECT_EQ(undefined.find("@GCC_"), std::string::npos) << undefined;
  EXPECT_EQ(lines("objdump -p " + lib + " 2>/dev/null").find("libgcc_s"), std::string::npos);
  const std::string all = lines("nm " + lib + " 2>/dev/null");
  EXPECT_NE(all.find("_Unwind_RaiseException"), std::string::npos) << "the forwarders are gone";
  EXPECT_EQ(all.find("_Unwind_Find_FDE"), std::string::npos) << "a static unwinder is linked";
}

}  // namespace
