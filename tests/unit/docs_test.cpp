// The option table drives the docs: docs/environment.md's table has one row per option with the
// table's default, names no variable the table lacks, and the README mentions every option; no
// document names a POOLSHIM_* variable that neither the table nor the build defines.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config/options.h"

namespace {

namespace pc = poolshim::config;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::string kRoot = std::string(POOLSHIM_TEST_DATA) + "/../../..";

std::string without_backticks(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '`'), text.end());
  return text;
}

// The rows of the doc's variable table: "| `NAME` | default | meaning |" -> NAME -> default
// (backticks dropped, as the doc marks up values that the table keeps plain).
std::map<std::string, std::string> documented_rows(const std::string& doc) {
  std::map<std::string, std::string> rows;
  static const std::regex kRow(R"(^\| `([A-Z0-9_]+)` \| ([^|]*[^| ]) \|)");
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kRow)) rows[m[1]] = without_backticks(m[2]);
  }
  return rows;
}

TEST(Docs, EnvironmentTableMatchesTheOptionTable) {
  const std::string doc = slurp(kRoot + "/docs/environment.md");
  ASSERT_FALSE(doc.empty());
  auto rows = documented_rows(doc);
  for (size_t i = 0; i < pc::kOptionCount; ++i) {
    const pc::Option& o = pc::option_table()[i];
    auto row = rows.find(o.name);
    ASSERT_NE(row, rows.end()) << o.name << " has no row in docs/environment.md";
    EXPECT_EQ(row->second, o.default_text) << o.name << ": the documented default";
  }
  EXPECT_EQ(rows.size(), pc::kOptionCount) << "a row for a variable the option table lacks";
}

// Any POOLSHIM_* variable the doc names, in the table or in the text, is an option.
TEST(Docs, EnvironmentNamesNoVariableTheTableLacks) {
  const std::string doc = slurp(kRoot + "/docs/environment.md");
  ASSERT_FALSE(doc.empty());
  static const std::regex kName(R"(POOLSHIM_[A-Z0-9_]*[A-Z0-9])");
  std::set<std::string> named;
  for (std::sregex_iterator it(doc.begin(), doc.end(), kName), end; it != end; ++it)
    named.insert(it->str());
  ASSERT_FALSE(named.empty());
  for (const std::string& name : named)
    EXPECT_NE(pc::find_option(name.c_str()), nullptr) << name << " is documented but not an option";
}

TEST(Docs, ReadmeMentionsEveryOption) {
  const std::string readme = slurp(kRoot + "/README.md");
  ASSERT_FALSE(readme.empty());
  for (size_t i = 0; i < pc::kOptionCount; ++i)
    EXPECT_NE(readme.find(pc::option_table()[i].name), std::string::npos)
        << pc::option_table()[i].name;
}

// The names the build and the benchmarks define: CMake variables and options (option(),
// set(), -D in scripts), the environment knobs of bench/ (a quoted "POOLSHIM_..." there) and the
// version nodes of the linker script (shim/exports.map: "POOLSHIM_1 {").
std::set<std::string> build_names() {
  std::set<std::string> names;
  static const std::regex kDefined(
      R"((?:option|set)\(\s*(POOLSHIM_[A-Z0-9_]*[A-Z0-9])|-D(POOLSHIM_[A-Z0-9_]*[A-Z0-9])=)");
  static const std::regex kQuoted(R"re("(POOLSHIM_[A-Z0-9_]*[A-Z0-9])")re");
  // The library's own macros (POOLSHIM_ASSERT, the counters' POOLSHIM_COUNT, ...).
  static const std::regex kMacro(R"(#define\s+(POOLSHIM_[A-Z0-9_]*[A-Z0-9]))");
  namespace fs = std::filesystem;
  for (const char* dir : {"", "cmake", "tests", "scripts", "bench", "shim"}) {
    fs::path root = fs::path(kRoot) / dir;
    if (!fs::exists(root)) continue;
    std::vector<fs::path> files;
    if (*dir == '\0') {
      files.push_back(root / "CMakeLists.txt");
    } else {
      for (const auto& e : fs::recursive_directory_iterator(root)) files.push_back(e.path());
    }
    for (const fs::path& p : files) {
      const std::string name = p.filename().string(), ext = p.extension().string();
      const bool cmake = name == "CMakeLists.txt" || ext == ".cmake" || ext == ".sh";
      const bool bench = *dir == 'b' && (ext == ".cpp" || ext == ".h" || ext == ".py");
      const bool macros = *dir == 's' && dir[1] == 'h' && ext == ".h";
      if (!cmake && !bench && !macros) continue;
      const std::string text = slurp(p.string());
      const std::regex& re = cmake ? kDefined : macros ? kMacro : kQuoted;
      for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
        for (size_t g = 1; g < it->size(); ++g)
          if ((*it)[g].matched) names.insert((*it)[g].str());
    }
  }
  static const std::regex kNode(R"((?:^|\n)(POOLSHIM_[A-Z0-9_]*[A-Z0-9])\s*\{)");
  const std::string map = slurp((fs::path(kRoot) / "shim" / "exports.map").string());
  for (std::sregex_iterator it(map.begin(), map.end(), kNode), end; it != end; ++it)
    names.insert((*it)[1].str());
  return names;
}

// Every POOLSHIM_* name in the README and docs/ is an option of the table, or a name the build
// or the benchmarks define (docs/design.md once named a variable that did not exist).
TEST(Docs, EveryPoolshimNameInTheDocsExists) {
  namespace fs = std::filesystem;
  std::set<std::string> known = build_names();
  ASSERT_TRUE(known.count("POOLSHIM_BUILD_TESTS") == 1) << "the scan of the build found too little";
  std::vector<fs::path> docs{fs::path(kRoot) / "README.md"};
  for (const auto& e : fs::directory_iterator(fs::path(kRoot) / "docs"))
    if (e.path().extension() == ".md" || e.path().extension() == ".1") docs.push_back(e.path());
  static const std::regex kName(R"(POOLSHIM_[A-Z0-9_]*[A-Z0-9])");
  size_t checked = 0;
  for (const fs::path& doc : docs) {
    const std::string text = slurp(doc.string());
    for (std::sregex_iterator it(text.begin(), text.end(), kName), end; it != end; ++it) {
      ++checked;
      const std::string name = it->str();
      EXPECT_TRUE(pc::find_option(name.c_str()) != nullptr || known.count(name) == 1)
          << doc.filename().string() << " names " << name
          << ", which is neither an option (shim/config/options.cpp) nor defined by the build";
    }
  }
  EXPECT_GE(checked, 20u);
}

}  // namespace
