// The layers of shim/ as docs/design.md draws them: no include runs upward. The test reads the
// layer table from docs/design.md ("Layers", one row per folder with the folders it may include,
// lowest first) and every quoted #include of every file under shim/, and fails on an include of
// a folder the row does not list, on a row that lists a folder above it, and on a folder of shim/
// that has no row (a new folder gets its place in the drawing first).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(POOLSHIM_TEST_DATA) / ".." / ".." / "..";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Layer {
  std::string folder;           // "base", "abi/pthreadpool"
  std::set<std::string> below;  // the folders it may include
};

// The rows "| `folder` | `a` `b` ... |" between the markers <!-- layers --> and <!-- /layers -->.
std::vector<Layer> documented_layers() {
  std::string doc = slurp(kRoot / "docs" / "design.md");
  size_t from = doc.find("<!-- layers -->"), to = doc.find("<!-- /layers -->");
  std::vector<Layer> layers;
  if (from == std::string::npos || to == std::string::npos || to < from) return layers;
  std::istringstream lines(doc.substr(from, to - from));
  static const std::regex kRow(R"(^\| `([a-z/_]+)` \| ([^|]*) \|)");
  static const std::regex kName(R"(`([a-z/_]+)`)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, kRow)) continue;
    Layer layer{m[1], {}};
    std::string deps = m[2];
    for (std::sregex_iterator it(deps.begin(), deps.end(), kName), end; it != end; ++it)
      layer.below.insert((*it)[1]);
    layers.push_back(layer);
  }
  return layers;
}

// The layer a path under shim/ belongs to: the longest folder that prefixes it (a folder inside
// another, such as abi/openmp/runtime inside abi/openmp, is a layer of its own).
const Layer* layer_of(const std::vector<Layer>& layers, const std::string& rel) {
  const Layer* best = nullptr;
  for (const Layer& l : layers)
    if (rel.compare(0, l.folder.size() + 1, l.folder + "/") == 0 &&
        (best == nullptr || l.folder.size() > best->folder.size()))
      best = &l;
  return best;
}

// Whether a file of shim/ may include target (both relative to shim/): same layer, or a folder
// the including file's row lists. Files in no layer are the row check's to report.
bool may_include(const std::vector<Layer>& layers, const std::string& file,
                 const std::string& target) {
  const Layer* from = layer_of(layers, file);
  const Layer* to = layer_of(layers, target);
  if (from == nullptr || to == nullptr || from == to) return true;
  return from->below.count(to->folder) == 1;
}

struct Include {
  std::string file;  // the including file, relative to shim/
  int line;
  std::string target;  // what it includes, relative to shim/
};

// Every #include "x/y" of every source under shim/ that names a file of shim/ (the public
// header "poolshim/poolshim.h" lives in include/ and may be included anywhere).
std::vector<Include> shim_includes() {
  std::vector<Include> out;
  static const std::regex kInclude(R"(^\s*#\s*include\s+"([^"]+)\")");
  const fs::path shim = kRoot / "shim";
  for (const auto& entry : fs::recursive_directory_iterator(shim)) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp" && ext != ".def") continue;
    const std::string rel = fs::relative(entry.path(), shim).generic_string();
    std::istringstream lines(slurp(entry.path()));
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      std::smatch m;
      if (std::regex_search(line, m, kInclude) && fs::exists(shim / std::string(m[1])))
        out.push_back({rel, n, m[1]});
    }
  }
  return out;
}

TEST(Layers, TheDesignDocDrawsThem) {
  std::vector<Layer> layers = documented_layers();
  ASSERT_GE(layers.size(), 8u) << "docs/design.md: no layer table between <!-- layers --> markers";
  // Lowest first: a row may only name folders of the rows above it.
  std::set<std::string> seen;
  for (const Layer& l : layers) {
    for (const std::string& b : l.below)
      EXPECT_TRUE(seen.count(b) == 1)
          << l.folder << " may include " << b << ", which is not a row above it in docs/design.md";
    EXPECT_TRUE(seen.insert(l.folder).second) << l.folder << " has two rows";
  }
}

TEST(Layers, EveryFolderOfShimHasARow) {
  std::vector<Layer> layers = documented_layers();
  ASSERT_FALSE(layers.empty());
  for (const auto& entry : fs::recursive_directory_iterator(kRoot / "shim")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp" && ext != ".def") continue;
    const std::string rel = fs::relative(entry.path(), kRoot / "shim").generic_string();
    EXPECT_NE(layer_of(layers, rel), nullptr)
        << "shim/" << rel << " is in no layer of docs/design.md";
  }
}

TEST(Layers, NoIncludeRunsUpward) {
  std::vector<Layer> layers = documented_layers();
  ASSERT_FALSE(layers.empty());
  std::vector<Include> includes = shim_includes();
  ASSERT_GE(includes.size(), 100u) << "the scan found too few includes (a wrong path?)";
  for (const Include& inc : includes) {
    if (may_include(layers, inc.file, inc.target)) continue;
    EXPECT_TRUE(false) << "shim/" << inc.file << ":" << inc.line << " includes " << inc.target
                       << ": " << layer_of(layers, inc.file)->folder << " may not include "
                       << layer_of(layers, inc.target)->folder << " (docs/design.md, Layers)";
  }
}

// A folder inside another folder's row is a room below it: its files belong to its own row, the
// outer folder may include it, and it may not include the outer folder (the OpenMP runtime,
// abi/openmp/runtime, never includes the routing layer abi/openmp that exports its rows).
TEST(Layers, ANestedFolderIsALayerBelowItsParent) {
  std::vector<Layer> layers = documented_layers();
  ASSERT_FALSE(layers.empty());
  int nested = 0;
  for (const Layer& inner : layers)
    for (const Layer& outer : layers) {
      if (inner.folder.compare(0, outer.folder.size() + 1, outer.folder + "/") != 0) continue;
      ++nested;
      const std::string in_inner = inner.folder + "/x.h", in_outer = outer.folder + "/x.h";
      EXPECT_EQ(layer_of(layers, inner.folder + "/x.cpp"), &inner) << inner.folder;
      EXPECT_EQ(layer_of(layers, in_outer), &outer) << outer.folder;
      EXPECT_FALSE(may_include(layers, inner.folder + "/x.cpp", in_outer))
          << inner.folder << " may include its parent " << outer.folder << " (docs/design.md)";
      EXPECT_TRUE(may_include(layers, outer.folder + "/x.cpp", in_inner))
          << outer.folder << " may not include its own " << inner.folder << " (docs/design.md)";
    }
  EXPECT_GE(nested, 1) << "docs/design.md: no row for abi/openmp/runtime inside abi/openmp";
}

}  // namespace
