// The rooms of shim/ stay small enough to read (docs/design.md, "Layers"): no file over kMaxFile
// lines, and no function of shim/core over kMaxCoreFunction lines (from the line of its opening
// brace to its closing one). Functions are found in the clang-formatted sources (.clang-format):
// a definition is a line that ends its signature with `{` outside any other function, and its
// body ends where its braces balance again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
const fs::path kRoot = fs::path(POOLSHIM_TEST_DATA) / ".." / ".." / "..";
constexpr size_t kMaxFile = 450;
constexpr size_t kMaxCoreFunction = 60;

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<fs::path> sources_under(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".cpp" || ext == ".h" || ext == ".def" || ext == ".map"))
      out.push_back(e.path());
  }
  return out;
}

// The line without its // comment and without the contents of its string and char literals.
std::string code_of(const std::string& line) {
  static const std::regex literal(R"("([^"\\]|\\.)*"|'([^'\\]|\\.)*')");
  std::string s = std::regex_replace(line, literal, "\"\"");
  const size_t c = s.find("//");
  if (c != std::string::npos) s.erase(c);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

struct Function {
  size_t first, last;  // 1-based lines of its opening and closing brace
};

// Function definitions of a clang-formatted source (see the file's comment).
std::vector<Function> functions_of(const std::vector<std::string>& lines) {
  static const std::regex signature_end(R"(\)\s*(const|noexcept|override|final|\s)*\{$)");
  static const std::regex control(R"(^\s*(\}\s*)?(if|for|while|switch|else|do|catch|try)\b)");
  std::vector<Function> out;
  int depth = 0;  // braces open inside the current function (0: outside any)
  size_t first = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string code = code_of(lines[i]);
    if (depth == 0) {
      if (std::regex_search(code, signature_end) && !std::regex_search(code, control)) {
        first = i + 1;
        for (char ch : code) depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
        if (depth <= 0) depth = 0;  // opened and closed on one line
      }
      continue;
    }
    for (char ch : code) depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
    if (depth <= 0) {
      out.push_back({first, i + 1});
      depth = 0;
    }
  }
  return out;
}

TEST(RoomSizes, NoFileOfTheLibraryIsLongerThanTheLimit) {
  for (const fs::path& p : sources_under(kRoot / "shim")) {
    const size_t n = lines_of(p).size();
    EXPECT_LE(n, kMaxFile) << fs::relative(p, kRoot / "shim").string() << " has " << n
                           << " lines: split it by concern";
  }
}

TEST(RoomSizes, NoFunctionOfCoreIsLongerThanTheLimit) {
  size_t seen = 0;
  for (const fs::path& p : sources_under(kRoot / "shim" / "core")) {
    const std::vector<std::string> lines = lines_of(p);
    for (const Function& f : functions_of(lines)) {
      ++seen;
      const size_t n = f.last - f.first + 1;
      EXPECT_LE(n, kMaxCoreFunction) << fs::relative(p, kRoot / "shim").string() << ":" << f.first
                                     << " is " << n << " lines long: " << lines[f.first - 1];
    }
  }
  EXPECT_GT(seen, 100u) << "the scan found too few functions in shim/core to be reading them";
}

// The scan itself, on a sample it must read right.
TEST(RoomSizes, TheScanFindsFunctionsAndSkipsControlBlocks) {
  const std::vector<std::string> sample = {
      "namespace x {",        // 1: a scope, not a function
      "void f(int a) {",      // 2
      "  if (a) {",           // 3
      "    g(\"}\");",        // 4: a brace in a string
      "  }",                  // 5
      "}",                    // 6
      "struct S {",           // 7
      "  int m() const {",    // 8
      "    return 1;  // }",  // 9: a brace in a comment
      "  }",                  // 10
      "};",                   // 11
      "}  // namespace x",    // 12
  };
  const std::vector<Function> fs = functions_of(sample);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].first, 2u);
  EXPECT_EQ(fs[0].last, 6u);
  EXPECT_EQ(fs[1].first, 8u);
  EXPECT_EQ(fs[1].last, 10u);
}

}  // namespace
