// The Fortran spellings of the native OpenMP runtime (shim/abi/openmp/runtime/fortran.cpp):
//  - every omp_*_ and omp_*_8_ row of symbols/openmp.def whose C spelling is native is native
//    too (a Fortran program under POOLSHIM_OPENMP=shim must not ask libgomp about a team that
//    libgomp never saw);
//  - called through dlsym on the built library with POOLSHIM_OPENMP=shim, the by-reference
//    spellings answer as the C ones do, inside a native parallel region and outside it, and the
//    _8_ variants narrow their int64_t arguments as libgomp's fortran.c does.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#include <atomic>
#include <string>
#include <vector>

#include "abi/openmp/entry.h"
#include "shim_exports.h"
#include "symbols/openmp_rows.h"

namespace {

using poolshim::abi::openmp::runtime_function;
namespace omp_rows = poolshim::symbols::openmp_rows;

// "omp_get_level_" -> "omp_get_level", "omp_set_nested_8_" -> "omp_set_nested"; "" if not Fortran.
std::string c_spelling(const std::string& n) {
  if (n.rfind("omp_", 0) != 0 || n.back() != '_') return "";
  if (n.size() > 3 && n.compare(n.size() - 3, 3, "_8_") == 0) return n.substr(0, n.size() - 3);
  return n.substr(0, n.size() - 1);
}

TEST(OpenmpFortran, EveryNativeCRowHasANativeFortranRow) {
  int checked = 0;
  for (size_t row = 0; row < omp_rows::kCount; ++row) {
    std::string name = omp_rows::name(row), c = c_spelling(name);
    if (c.empty()) continue;
    // The same version's C spelling (the OMP_3.0 nest locks are native, the OMP_1.0 ones not).
    size_t c_row = 0;
    while (c_row < omp_rows::kCount &&
           (c != omp_rows::name(c_row) ||
            std::string(omp_rows::version(c_row)) != omp_rows::version(row)))
      ++c_row;
    if (c_row == omp_rows::kCount || runtime_function(c_row) == nullptr) continue;
    EXPECT_NE(runtime_function(row), nullptr) << name << " is not native, but " << c << " is";
    ++checked;
  }
  EXPECT_GE(checked, 38);  // the Fortran rows of the queries, setters, teams and allocators
}

// The built library, loaded on its own with the native runtime on.
class Dl : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("POOLSHIM_OPENMP", "shim", 1);
    handle_ = dlopen(shim_library_path().c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
  }
  template <typename F>
  F sym(const char* name) {
    void* p = dlsym(handle_, name);
    EXPECT_NE(p, nullptr) << name;
    return reinterpret_cast<F>(p);
  }
  void* handle_ = nullptr;
};

struct Fns {
  int32_t (*thread_num_)();
  int32_t (*num_threads_)();
  int32_t (*level_)();
  int32_t (*team_size_)(const int32_t*);
  int32_t (*team_size_8_)(const int64_t*);
  int32_t (*ancestor_8_)(const int64_t*);
  int32_t (*in_parallel_)();
  int (*thread_num)();
  std::atomic<int> bad{0};
  std::atomic<int> seen{0};
};

void body(void* p) {
  Fns* f = static_cast<Fns*>(p);
  int32_t one = 1;
  int64_t one8 = 1, huge = int64_t{1} << 40;
  bool ok = f->thread_num_() == f->thread_num() && f->num_threads_() == 2 && f->level_() == 1 &&
            f->team_size_(&one) == 2 && f->team_size_8_(&one8) == 2 &&
            f->ancestor_8_(&one8) == f->thread_num() && f->ancestor_8_(&huge) == -1 &&
            f->in_parallel_() == 1;
  if (!ok) f->bad.fetch_add(1);
  f->seen.fetch_or(1 << f->thread_num_());
}

TEST_F(Dl, QueriesInsideANativeRegion) {
  Fns f;
  f.thread_num_ = sym<int32_t (*)()>("omp_get_thread_num_");
  f.num_threads_ = sym<int32_t (*)()>("omp_get_num_threads_");
  f.level_ = sym<int32_t (*)()>("omp_get_level_");
  f.team_size_ = sym<int32_t (*)(const int32_t*)>("omp_get_team_size_");
  f.team_size_8_ = sym<int32_t (*)(const int64_t*)>("omp_get_team_size_8_");
  f.ancestor_8_ = sym<int32_t (*)(const int64_t*)>("omp_get_ancestor_thread_num_8_");
  f.in_parallel_ = sym<int32_t (*)()>("omp_in_parallel_");
  f.thread_num = sym<int (*)()>("omp_get_thread_num");
  auto parallel = sym<void (*)(void (*)(void*), void*, unsigned, unsigned)>("GOMP_parallel");
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(f.level_(), 0);
  EXPECT_EQ(f.num_threads_(), 1);
  parallel(body, &f, 2, 0);
  EXPECT_EQ(f.bad.load(), 0);
  EXPECT_EQ(f.seen.load(), 3);  // members 0 and 1 both ran
}

TEST_F(Dl, SettersByReference) {
  auto set_num_threads_8_ = sym<void (*)(const int64_t*)>("omp_set_num_threads_8_");
  auto get_max_threads_ = sym<int32_t (*)()>("omp_get_max_threads_");
  auto set_dynamic_8_ = sym<void (*)(const int64_t*)>("omp_set_dynamic_8_");
  auto get_dynamic_ = sym<int32_t (*)()>("omp_get_dynamic_");
  auto set_schedule_8_ = sym<void (*)(const int32_t*, const int64_t*)>("omp_set_schedule_8_");
  auto get_schedule_ = sym<void (*)(int32_t*, int32_t*)>("omp_get_schedule_");
  auto set_num_teams_ = sym<void (*)(const int32_t*)>("omp_set_num_teams_");
  auto get_max_teams_ = sym<int32_t (*)()>("omp_get_max_teams_");
  ASSERT_FALSE(HasFailure());
  int64_t three = 3;
  set_num_threads_8_(&three);
  EXPECT_EQ(get_max_threads_(), 3);
  int64_t big = int64_t{1} << 33;  // !!big: true, where a narrowing cast would give 0
  set_dynamic_8_(&big);
  EXPECT_EQ(get_dynamic_(), 1);
  int32_t kind = 2 | static_cast<int32_t>(0x80000000u);  // dynamic, monotonic
  int64_t chunk = int64_t{1} << 40;                      // clamped to INT_MAX
  set_schedule_8_(&kind, &chunk);
  int32_t k = 0, c = 0;
  get_schedule_(&k, &c);
  EXPECT_EQ(k, 2);  // the monotonic bit masked off, as libgomp's Fortran spelling does
  EXPECT_EQ(c, INT32_MAX);
  int32_t five = 5;
  set_num_teams_(&five);
  EXPECT_EQ(get_max_teams_(), 5);
}

// Another area's row, through its C spelling's entry point: outside any task, not final.
TEST_F(Dl, InFinalThroughTheCSpelling) {
  auto in_final_ = sym<int32_t (*)()>("omp_in_final_");
  ASSERT_FALSE(HasFailure());
  EXPECT_EQ(in_final_(), 0);
}

}  // namespace
