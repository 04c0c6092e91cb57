// budget::current() on inputs this test sets itself: the affinity mask pinned to a known number
// of CPUs and a fake cgroup tree (tests/unit/data/cgroup/<case>, through the sysfs seam), with
// POOLSHIM_NUM_THREADS unset. The expected numbers are written down from those inputs, never
// computed with the functions under test. current() caches once per process, so each case runs
// in a child process of its own (EXPECT_EXIT), which pins itself and reports what differs.
#include "budget/budget.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "budget/sysfs.h"
#include "config/options.h"

namespace pb = poolshim::budget;

namespace {

// Pins the calling thread (and the threads it starts later) to the first n CPUs of its mask.
bool pin_to(size_t n) {
  cpu_set_t have, want;
  CPU_ZERO(&want);
  if (sched_getaffinity(0, sizeof have, &have) != 0) return false;
  size_t taken = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && taken < n; ++cpu) {
    if (!CPU_ISSET(cpu, &have)) continue;
    CPU_SET(cpu, &want);
    ++taken;
  }
  return taken == n && sched_setaffinity(0, sizeof want, &want) == 0;
}

bool have_cpus(size_t n) {
  cpu_set_t have;
  return sched_getaffinity(0, sizeof have, &have) == 0 &&
         static_cast<size_t>(CPU_COUNT(&have)) >= n;
}

struct Expected {
  size_t threads, affinity_cpus, cgroup_cpus;
  const char* source;
};

// In the child: set the inputs, ask current() from 8 threads at once, compare. Exits 0 when
// everything matches, else 1 after one line per difference on stderr.
[[noreturn]] void check_in_child(size_t pinned, const char* cgroup_case, const Expected& want) {
  ::unsetenv("POOLSHIM_NUM_THREADS");
  poolshim::config::reload_for_testing();
  std::string root = std::string(POOLSHIM_TEST_DATA) + "/cgroup/" + cgroup_case;
  if (!pin_to(pinned) || !pb::sysfs::set_root_for_testing(root.c_str())) {
    fprintf(stderr, "cannot set the inputs\n");
    _exit(2);
  }
  std::atomic<int> go{0};
  std::vector<const pb::Budget*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] {
      while (go.load() == 0) std::this_thread::yield();
      seen[i] = &pb::current();
    });
  }
  go.store(1);
  for (auto& t : threads) t.join();
  int bad = 0;
  auto expect = [&](bool ok, const char* what) {
    if (!ok) fprintf(stderr, "differs: %s\n", what), ++bad;
  };
  const pb::Budget& b = pb::current();
  for (const auto* s : seen) expect(s == &b, "concurrent first callers got one object");
  expect(b.threads == want.threads, "threads");
  expect(b.affinity_cpus == want.affinity_cpus, "affinity_cpus");
  expect(b.cgroup_cpus == want.cgroup_cpus, "cgroup_cpus");
  expect(std::string(b.source) == want.source, "source");
  if (bad != 0)
    fprintf(stderr, "got threads %zu, affinity %zu, cgroup %zu, source '%s'\n", b.threads,
            b.affinity_cpus, b.cgroup_cpus, b.source);
  _exit(bad == 0 ? 0 : 1);
}

}  // namespace

// Two CPUs in the mask, a cgroup with no quota (cpu.max "max"): the mask decides.
TEST(BudgetCurrent, AffinityMaskWithoutCgroupLimit) {
  if (!have_cpus(2)) GTEST_SKIP() << "needs 2 CPUs in the affinity mask";
  EXPECT_EXIT(check_in_child(2, "v2_max", {2, 2, 0, "affinity mask (2 CPUs)"}),
              testing::ExitedWithCode(0), "");
}

// Two CPUs in the mask, a cgroup quota of 5000/100000 (0.05 CPU, rounded up to 1): the cgroup.
TEST(BudgetCurrent, CgroupQuotaBelowTheMask) {
  if (!have_cpus(2)) GTEST_SKIP() << "needs 2 CPUs in the affinity mask";
  EXPECT_EXIT(check_in_child(
                  2, "v2_child_tightest",
                  {1, 2, 1, "cgroup v2 cpu.max 5000 100000 at /sys/fs/cgroup/svc/worker (1 CPU)"}),
              testing::ExitedWithCode(0), "");
}

// One CPU in the mask, a parent cgroup's quota of 150000/100000 (2 CPUs): the mask again.
TEST(BudgetCurrent, MaskBelowTheCgroupQuota) {
  EXPECT_EXIT(check_in_child(1, "v2_parent_limit", {1, 1, 2, "affinity mask (1 CPU)"}),
              testing::ExitedWithCode(0), "");
}
