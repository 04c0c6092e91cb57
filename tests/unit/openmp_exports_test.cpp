// The OpenMP surface exports every row of shim/symbols/openmp.def as name@@version
// (the default) or name@version (an older binding), nothing else named GOMP_*, omp_* or
// __kmpc_*, and, when GCC's libgomp.so.1 is installed, exactly the host functions it exports with
// the same versions (OpenACC and the offload plugin interface left out), so that a module's
// versioned reference (GOMP_parallel@GOMP_4.0) finds the shim first; when LLVM's libomp.so.5 is
// installed, exactly its __kmpc_* and omp_* functions in its node VERSION (kmpc.def's rows).
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

// On name@@version or name@version: libomp's rows are its node VERSION's: __kmpc_*, omp_*, GOMP_*,
// but the typed atomics __kmpc_atomic_* (kmpc.def says why).
bool libomp_name(const std::string& s) {
  const std::string tail = "@VERSION";
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0 &&
         (s.rfind("__kmpc_", 0) == 0 || s.rfind("omp_", 0) == 0 || s.rfind("GOMP_", 0) == 0) &&
         s.rfind("__kmpc_atomic_", 0) != 0;
}
// name@@VERSION -> name@VERSION: libomp makes VERSION the default of every name; the shim does
// only where libgomp has no version of the name (kmpc_omp.def).
std::set<std::string> any_binding(const std::set<std::string>& in) {
  std::set<std::string> out;
  for (std::string s : in) {
    const size_t at = s.find("@@");
    out.insert(at == std::string::npos ? s : s.erase(at, 1));
  }
  return out;
}
bool gomp_name(const std::string& s) {
  return (s.rfind("GOMP_", 0) == 0 || s.rfind("omp_", 0) == 0) && !libomp_name(s);
}
bool openmp_name(const std::string& s) { return gomp_name(s) || libomp_name(s); }

std::set<std::string> shim_openmp(bool (*which)(const std::string&) = openmp_name) {
  std::set<std::string> names;
  for (const auto& e : shim_versioned_exports())
    if (which(e.first)) {
      EXPECT_EQ(e.second, "T") << e.first;
      names.insert(e.first);
    }
  return names;
}

// A runtime's functions that `which` takes, as `objdump -T` shows them: name@@version or, for
// an older binding, "(version)" -> name@version. Empty when the library is not installed.
std::set<std::string> runtime_exports(const char* path, bool (*which)(const std::string&)) {
  std::set<std::string> names;
  FILE* p = popen((std::string("objdump -T ") + path + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return names;
  char line[4096];
  while (fgets(line, sizeof line, p)) {
    std::istringstream in(line);
    std::string f, words[8];
    int n = 0;
    while (n < 8 && in >> words[n]) ++n;
    if (n < 7 || words[2] != "DF" || words[3] == "*UND*") continue;
    std::string version = words[n - 2], name = words[n - 1];
    if (name.rfind("GOMP_PLUGIN_", 0) == 0) continue;
    bool hidden = version.front() == '(';
    if (hidden) version = version.substr(1, version.size() - 2);
    std::string versioned = name + (hidden ? "@" : "@@") + version;
    if (which(versioned)) names.insert(versioned);
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
  std::set<std::string> gomp = runtime_exports("/usr/lib/x86_64-linux-gnu/libgomp.so.1", gomp_name);
  if (gomp.empty()) GTEST_SKIP() << "libgomp.so.1 or objdump not installed";
  std::set<std::string> have = shim_openmp(gomp_name);
  for (const std::string& s : gomp)
    EXPECT_TRUE(have.count(s)) << "libgomp exports, we do not: " << s;
  for (const std::string& s : have) EXPECT_TRUE(gomp.count(s)) << "libgomp does not export: " << s;
}

// Debian's libomp5-14 (scripts/deps.sh openmp); Intel's libiomp5 has the same names and node.
TEST(OpenmpExports, TheKmpcAndOmpPartOfLibomp) {
  std::set<std::string> kmpc =
      any_binding(runtime_exports("/usr/lib/llvm-14/lib/libomp.so.5", libomp_name));
  if (kmpc.empty()) GTEST_SKIP() << "libomp.so.5 (libomp5-14) or objdump not installed";
  std::set<std::string> have = any_binding(shim_openmp(libomp_name));
  EXPECT_TRUE(have.count("__kmpc_fork_call@VERSION"));
  EXPECT_TRUE(have.count("omp_get_thread_num@VERSION"));
  EXPECT_TRUE(have.count("GOMP_parallel@VERSION"));
  for (const std::string& s : kmpc)
    EXPECT_TRUE(have.count(s)) << "libomp exports, we do not: " << s;
  for (const std::string& s : have) EXPECT_TRUE(kmpc.count(s)) << "libomp does not export: " << s;
}

// libomp's rows come last (forward.cpp treats every row from kFirstLibompRow on as libomp's).
TEST(OpenmpExports, LibompRowsComeLast) {
  namespace rows = poolshim::symbols::openmp_rows;
  for (size_t i = 0; i < rows::kCount; ++i)
    EXPECT_EQ(std::string(rows::version(i)) == "VERSION", i >= rows::kFirstLibompRow)
        << rows::name(i);
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
