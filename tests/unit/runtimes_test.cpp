// Other runtimes' pools are recognised by file name, bundled copies with a hash suffix included,
// and nothing else is (diag/runtimes.h).
#include <gtest/gtest.h>

#include <cstring>

#include "diag/runtimes.h"

namespace {

const char* name_of(const char* path) {
  const poolshim::diag::Runtime* r = poolshim::diag::runtime_of(path);
  return r != nullptr ? r->name : "";
}

const char* var_of(const char* path) {
  const poolshim::diag::Runtime* r = poolshim::diag::runtime_of(path);
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
  for (const char* p : {"/usr/lib/libgompx.so", "/usr/lib/libomptarget.so.14", "/usr/lib/libtbbmalloc.so.2",
                        "/usr/lib/x86_64-linux-gnu/libpthreadpool.so.0", "/lib/libc.so.6", "", "/", "libmkl"}) {
    EXPECT_EQ(poolshim::diag::runtime_of(p), nullptr) << p;
  }
  EXPECT_EQ(poolshim::diag::runtime_of(nullptr), nullptr);
}

TEST(Runtimes, TableIsTerminated) {
  size_t n = 0;
  for (const poolshim::diag::Runtime* r = poolshim::diag::runtime_table(); r->prefix != nullptr; ++r) ++n;
  EXPECT_EQ(n, 7u);
}

}  // namespace
