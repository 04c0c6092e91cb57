// The sysfs seam (shim/budget/sysfs.h) pointed at a fixture tree for one scope: every /proc, /sys
// and cgroup read inside the scope goes to the tree, and the real filesystem comes back when the
// scope ends, also when a failed ASSERT returns early.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "budget/sysfs.h"

namespace poolshim::testing {

// tests/unit/data/cgroup/<name>: one fixture tree.
inline std::string sysfs_fixture(const std::string& name) {
  return std::string(POOLSHIM_TEST_DATA) + "/cgroup/" + name;
}

class ScopedSysfsRoot {
 public:
  explicit ScopedSysfsRoot(const std::string& root)
      : ok_(poolshim::budget::sysfs::set_root_for_testing(root.c_str())) {
    EXPECT_TRUE(ok_) << "the seam refused the root " << root;
  }
  ~ScopedSysfsRoot() { poolshim::budget::sysfs::set_root_for_testing(""); }
  ScopedSysfsRoot(const ScopedSysfsRoot&) = delete;
  ScopedSysfsRoot& operator=(const ScopedSysfsRoot&) = delete;

  bool ok() const { return ok_; }

 private:
  bool ok_;
};

}  // namespace poolshim::testing
