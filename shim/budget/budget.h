// How many threads the process may use: the budget, and where that number came from.
#pragma once
#include <cstddef>

namespace poolshim::budget {

struct Budget {
  size_t threads = 1;  // >= 1
  char source[160] =
      "";  // human-readable, e.g. "cgroup v2 cpu.max 150000 100000 (/sys/fs/cgroup/a/b)"
  size_t affinity_cpus = 0;  // CPUs in the affinity mask; 0 = could not be read
  size_t cgroup_cpus = 0;    // ceil(quota/period) of the tightest cgroup limit; 0 = no limit found
  char cgroup_detail[160] = "";  // what the cgroup limit was read from, or why none applied
  size_t online_cpus = 0;        // CPUs in /sys/devices/system/cpu/online (else sysconf); the
                                 // budget only when the affinity mask is unreadable; 0 = unknown
};

// The process's budget, computed once (thread-safe) from POOLSHIM_NUM_THREADS (via
// config::options()), the affinity mask and the cgroup limit. Never fails: at worst 1 thread, with
// a source that says why.
const Budget& current();

}  // namespace poolshim::budget
