// The OpenMP runtime's allocate-or-abort helpers (shim/abi/openmp/runtime/xmalloc.h): memory when
// there is some (calloc's zeroed, posix_memalign's aligned), and otherwise one line on stderr and
// an abort, as libgomp's gomp_malloc ends the process.
#include <gtest/gtest.h>

#include <stdint.h>
#include <stdlib.h>

#include "abi/openmp/runtime/xmalloc.h"

namespace {

namespace rt = poolshim::abi::openmp::runtime;

TEST(OpenmpXmalloc, GivesMemory) {
  void* p = rt::xmalloc(100);
  ASSERT_NE(p, nullptr);
  free(p);
  auto* z = static_cast<unsigned char*>(rt::xcalloc(8, 16));
  ASSERT_NE(z, nullptr);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(z[i], 0) << i;
  free(z);
  void* a = rt::xaligned_alloc(256, 10);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  free(a);
}

TEST(OpenmpXmalloc, AbortsWithOneLineWhenThereIsNone) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizer's allocator reports an impossible size itself";
#else
  const size_t huge = SIZE_MAX / 2;  // no machine maps this much
  EXPECT_DEATH(rt::xmalloc(huge), "poolshim: openmp: out of memory allocating [0-9]+ bytes");
  EXPECT_DEATH(rt::xcalloc(huge, 1), "out of memory allocating");
  EXPECT_DEATH(rt::xaligned_alloc(64, huge), "out of memory allocating");
#endif
}

}  // namespace
