// The option table drives the docs: every variable it knows is documented in
// docs/environment.md and mentioned in the README.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "diag/options.h"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(Docs, EveryOptionIsDocumented) {
  const std::string root = std::string(POOLSHIM_TEST_DATA) + "/../../..";
  const std::string env_doc = slurp(root + "/docs/environment.md");
  const std::string readme = slurp(root + "/README.md");
  ASSERT_FALSE(env_doc.empty());
  ASSERT_FALSE(readme.empty());
  for (const poolshim::diag::OptionInfo* o = poolshim::diag::option_table(); o->name; ++o) {
    EXPECT_NE(env_doc.find(std::string("`") + o->name + "`"), std::string::npos) << o->name;
    EXPECT_NE(readme.find(o->name), std::string::npos) << o->name;
  }
}

}  // namespace
