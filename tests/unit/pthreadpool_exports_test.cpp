// The pthreadpool surface of libpoolshim.so is exactly the 58 public functions of upstream's 2025
// header: all exported (nm -D --defined-only), nothing else named pthreadpool_*, each one listed
// in docs/pthreadpool-coverage.md.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "shim_exports.h"

namespace {

const char* const kApi[] = {
    "pthreadpool_create", "pthreadpool_create_v2", "pthreadpool_get_threads_count",
    "pthreadpool_set_threads_count", "pthreadpool_release_executor_threads",
    "pthreadpool_update_executor", "pthreadpool_destroy",
    "pthreadpool_parallelize_1d", "pthreadpool_parallelize_1d_with_thread",
    "pthreadpool_parallelize_1d_with_uarch", "pthreadpool_parallelize_1d_tile_1d",
    "pthreadpool_parallelize_1d_tile_1d_dynamic",
    "pthreadpool_parallelize_1d_tile_1d_dynamic_with_thread",
    "pthreadpool_parallelize_1d_tile_1d_dynamic_with_uarch_with_thread",
    "pthreadpool_parallelize_2d", "pthreadpool_parallelize_2d_with_thread",
    "pthreadpool_parallelize_2d_tile_1d", "pthreadpool_parallelize_2d_tile_1d_with_uarch",
    "pthreadpool_parallelize_2d_tile_1d_with_uarch_with_thread",
    "pthreadpool_parallelize_2d_tile_1d_dynamic",
    "pthreadpool_parallelize_2d_tile_1d_dynamic_with_thread",
    "pthreadpool_parallelize_2d_tile_1d_dynamic_with_uarch_with_thread",
    "pthreadpool_parallelize_2d_tile_2d", "pthreadpool_parallelize_2d_tile_2d_dynamic",
    "pthreadpool_parallelize_2d_tile_2d_dynamic_with_uarch",
    "pthreadpool_parallelize_2d_tile_2d_dynamic_with_thread",
    "pthreadpool_parallelize_2d_tile_2d_with_uarch",
    "pthreadpool_parallelize_3d", "pthreadpool_parallelize_3d_tile_1d",
    "pthreadpool_parallelize_3d_tile_1d_with_thread", "pthreadpool_parallelize_3d_tile_1d_with_uarch",
    "pthreadpool_parallelize_3d_tile_1d_with_uarch_with_thread",
    "pthreadpool_parallelize_3d_tile_1d_dynamic",
    "pthreadpool_parallelize_3d_tile_1d_dynamic_with_thread",
    "pthreadpool_parallelize_3d_tile_1d_dynamic_with_uarch_with_thread",
    "pthreadpool_parallelize_3d_tile_2d", "pthreadpool_parallelize_3d_tile_2d_dynamic",
    "pthreadpool_parallelize_3d_tile_2d_dynamic_with_uarch",
    "pthreadpool_parallelize_3d_tile_2d_dynamic_with_thread",
    "pthreadpool_parallelize_3d_tile_2d_with_uarch",
    "pthreadpool_parallelize_4d", "pthreadpool_parallelize_4d_tile_1d",
    "pthreadpool_parallelize_4d_tile_2d", "pthreadpool_parallelize_4d_tile_2d_with_uarch",
    "pthreadpool_parallelize_4d_tile_2d_dynamic",
    "pthreadpool_parallelize_4d_tile_2d_dynamic_with_uarch",
    "pthreadpool_parallelize_5d", "pthreadpool_parallelize_5d_tile_1d",
    "pthreadpool_parallelize_5d_tile_2d", "pthreadpool_parallelize_6d",
    "pthreadpool_parallelize_6d_tile_1d", "pthreadpool_parallelize_6d_tile_2d",
    "pthreadpool_compute_1d", "pthreadpool_compute_1d_tiled", "pthreadpool_compute_2d",
    "pthreadpool_compute_2d_tiled", "pthreadpool_compute_3d_tiled", "pthreadpool_compute_4d_tiled",
};

std::set<std::string> exported_pthreadpool_functions() {
  std::set<std::string> names;
  for (const auto& [name, type] : shim_dynamic_exports()) {
    if (name.rfind("pthreadpool_", 0) != 0) continue;
    EXPECT_EQ(type, "T") << name << " should be a function";
    names.insert(name);
  }
  return names;
}

TEST(PthreadpoolExports, ExactlyTheFiftyEightFunctions) {
  std::set<std::string> want(std::begin(kApi), std::end(kApi));
  ASSERT_EQ(want.size(), 58u);
  std::set<std::string> have = exported_pthreadpool_functions();
  ASSERT_FALSE(have.empty()) << "could not read the exports of libpoolshim.so";
  for (const std::string& s : want) EXPECT_TRUE(have.count(s)) << "not exported: " << s;
  for (const std::string& s : have) EXPECT_TRUE(want.count(s)) << "exported but not in the API: " << s;
}

TEST(PthreadpoolExports, CoverageTableListsEachFunctionOnce) {
  std::ifstream f(std::string(POOLSHIM_TEST_DATA) + "/../../../docs/pthreadpool-coverage.md");
  ASSERT_TRUE(f.good());
  std::set<std::string> rows;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("| `pthreadpool_", 0) != 0) continue;
    std::string name = line.substr(3, line.find('`', 3) - 3);
    EXPECT_TRUE(rows.insert(name).second) << "listed twice: " << name;
  }
  std::set<std::string> want(std::begin(kApi), std::end(kApi));
  EXPECT_EQ(rows, want);
}

}  // namespace
