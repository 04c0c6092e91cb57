// The topology report through a PRIVATELY loaded libcpuinfo (shim/topology.h).
#include "topology.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <string>

namespace pb = poolshim::cli;

TEST(BudgetTopology, MissingLibraryIsUnavailableWithReason) {
  pb::Topology t = pb::probe_topology("libpoolshim-no-such-library.so.0");
  EXPECT_FALSE(t.available);
  EXPECT_EQ(t.logical, 0u);
  EXPECT_NE(std::string(t.detail).find("not loadable"), std::string::npos) << t.detail;
}

TEST(BudgetTopology, LibraryWithoutCpuinfoIsUnavailable) {
  pb::Topology t = pb::probe_topology("libm.so.6");
  EXPECT_FALSE(t.available);
  EXPECT_NE(std::string(t.detail).find("lacks the cpuinfo entry points"), std::string::npos)
      << t.detail;
}

TEST(BudgetTopology, CpuinfoCountsAreConsistentAndStayPrivate) {
  // The test host installs libcpuinfo0 (scripts/deps.sh); without it this is a real failure.
  void* present = dlopen(pb::kCpuinfoSoname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  EXPECT_EQ(present, nullptr) << "cpuinfo must not be loaded before topology() asks for it";

  const pb::Topology& t = pb::topology();
  EXPECT_EQ(&t, &pb::topology());  // cached
  ASSERT_TRUE(t.available) << t.detail;
  EXPECT_GE(t.logical, 1u);
  EXPECT_GE(t.cores, 1u);
  EXPECT_GE(t.packages, 1u);
  EXPECT_LE(t.cores, t.logical);
  EXPECT_LE(t.packages, t.cores);
  EXPECT_NE(std::string(t.detail).find("logical CPU"), std::string::npos) << t.detail;

  // Loaded RTLD_LOCAL: its symbols are not in the global scope, so they cannot interpose a
  // legacy module's private cpuinfo copy.
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "cpuinfo_initialize"), nullptr);
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "cpuinfo_get_processors_count"), nullptr);
}
