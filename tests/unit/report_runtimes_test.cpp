// Other runtimes' pools are recognised by file name, bundled copies with a hash suffix included,
// and nothing else is (report/runtimes.h).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "report/runtimes.h"

namespace {

const char* name_of(const char* path) {
  const poolshim::report::Runtime* r = poolshim::report::runtime_of(path);
  return r != nullptr ? r->name : "";
}

const char* var_of(const char* path) {
  const poolshim::report::Runtime* r = poolshim::report::runtime_of(path);
  return r != nullptr ? r->env_var : "";
}

TEST(Runtimes, KnownLibrariesAreNamedWithTheirVariable) {
  EXPECT_STREQ(var_of("/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0"), "OMP_NUM_THREADS");
  EXPECT_STREQ(var_of("/site-packages/torch.libs/libgomp-a34b3233.so.1"), "OMP_NUM_THREADS");
  EXPECT_STREQ(var_of("/opt/intel/lib/libiomp5.so"), "OMP_NUM_THREADS");
  EXPECT_STREQ(var_of("/usr/lib/llvm-14/lib/libomp.so.5"), "OMP_NUM_THREADS");
  EXPECT_STREQ(var_of("/usr/lib/x86_64-linux-gnu/libopenblas.so.0"), "OPENBLAS_NUM_THREADS");
  EXPECT_STREQ(var_of("/numpy.libs/libopenblas64_p-r0-15028c96.3.21.so"), "OPENBLAS_NUM_THREADS");
  EXPECT_STREQ(var_of("/numpy.libs/libscipy_openblas64_-ff651d7f.so"), "OPENBLAS_NUM_THREADS");
  EXPECT_STREQ(var_of("/opt/intel/mkl/lib/libmkl_core.so.2"), "MKL_NUM_THREADS");
  EXPECT_NE(std::strstr(name_of("/usr/lib/x86_64-linux-gnu/libtbb.so.12.8"), "oneTBB"), nullptr);
  EXPECT_STREQ(var_of("libgomp.so.1"), "OMP_NUM_THREADS");  // a bare SONAME
}

TEST(Runtimes, OtherLibrariesAreNot) {
  for (const char* p :
       {"/usr/lib/libgompx.so", "/usr/lib/libomptarget.so.14", "/usr/lib/libtbbmalloc.so.2",
        "/usr/lib/x86_64-linux-gnu/libpthreadpool.so.0", "/lib/libc.so.6", "", "/", "libmkl"}) {
    EXPECT_EQ(poolshim::report::runtime_of(p), nullptr) << p;
  }
  EXPECT_EQ(poolshim::report::runtime_of(nullptr), nullptr);
}

TEST(Runtimes, TableIsTerminated) {
  size_t n = 0;
  for (const poolshim::report::Runtime* r = poolshim::report::runtime_table(); r->prefix != nullptr;
       ++r)
    ++n;
  EXPECT_EQ(n, 7u);
}

}  // namespace

namespace {

// python/poolshim/_runtimes.py keeps the same table for poolshim.info() in a Python process:
// its RUNTIMES rows ("prefix", "name", "VARIABLE" or None) must be the C++ rows, in order. A row
// without a variable is one whose C++ env_var is prose (it contains a space: oneTBB).
TEST(Runtimes, ThePythonTableIsTheSame) {
  std::ifstream in(std::string(POOLSHIM_TEST_DATA) + "/../../../python/poolshim/_runtimes.py");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string py = ss.str();
  size_t from = py.find("RUNTIMES = (");
  ASSERT_NE(from, std::string::npos);
  size_t to = py.find("\n)", from);
  ASSERT_NE(to, std::string::npos);
  const std::string table = py.substr(from, to - from);
  static const std::regex kRow(R"re(\(\s*"([^"]*)",\s*"([^"]*)",\s*(None|"([^"]*)")\s*\))re");
  const poolshim::report::Runtime* r = poolshim::report::runtime_table();
  size_t rows = 0;
  for (std::sregex_iterator it(table.begin(), table.end(), kRow), end; it != end; ++it, ++rows) {
    ASSERT_NE(r->prefix, nullptr) << "the Python table has more rows: " << it->str();
    EXPECT_EQ((*it)[1].str(), r->prefix);
    EXPECT_EQ((*it)[2].str(), r->name);
    const bool prose = std::strchr(r->env_var, ' ') != nullptr;
    if (prose)
      EXPECT_EQ((*it)[3].str(), "None") << r->prefix;
    else
      EXPECT_EQ((*it)[4].str(), r->env_var) << r->prefix;
    ++r;
  }
  EXPECT_EQ(r->prefix, nullptr) << "the C++ table has more rows, from " << r->prefix;
  EXPECT_EQ(rows, 7u);
}

}  // namespace
