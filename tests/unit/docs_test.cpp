// The option table drives the docs: docs/environment.md's table has one row per option with the
// table's default, names no variable the table lacks, and the README mentions every option.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

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
    EXPECT_NE(readme.find(pc::option_table()[i].name), std::string::npos) << pc::option_table()[i].name;
}

}  // namespace
