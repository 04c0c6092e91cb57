// The budget as a pure function of what was gathered, so every rule is unit-tested without
// touching the machine. budget.cpp gathers the inputs once and caches the result.
#pragma once
#include <cstddef>

#include "budget/budget.h"
#include "budget/cgroup.h"

namespace poolshim::budget {

struct Inputs {
  size_t env_threads = 0;    // POOLSHIM_NUM_THREADS (config::options().num_threads); 0 = unset
  size_t env_cores = 0;      // POOLSHIM_NUM_THREADS=cores: the physical cores; 0 = unset/unknown
  size_t affinity_cpus = 0;  // CPUs in the affinity mask; 0 = unreadable
  bool mask_before_pin = false;  // it is the process's mask from before OpenMP pinned the thread
  size_t online_cpus = 0;        // online CPUs; 0 = unknown (used only if the mask is unreadable)
  const CgroupLimit* cgroup = nullptr;  // nullptr = not consulted (no limit)
};

// The rules, in order:
//   1. POOLSHIM_NUM_THREADS when set (> 0): it wins, whatever the machine says. With =cores, the
//      physical cores (env_cores), but never more than rules 2-3 give.
//   2. Otherwise the CPUs in the affinity mask (if unreadable: online CPUs; if unknown too: 1).
//   3. A cgroup limit (cpus > 0) that is strictly smaller replaces it.
// source names where the number came from; cgroup_detail always describes the cgroup finding.
Budget compute_budget(const Inputs& in);

}  // namespace poolshim::budget
