// The process's budget, gathered once: see budget.h. The rules live in compute.cpp.
#include "budget/budget.h"

#include "budget/affinity.h"
#include "budget/cgroup.h"
#include "budget/compute.h"
#include "diag/log.h"
#include "diag/options.h"

namespace poolshim::budget {
namespace {

Budget gather() {
  Inputs in;
  in.env_threads = diag::options().num_threads;
  in.affinity_cpus = affinity_cpus();
  in.online_cpus = online_cpus();
  // The cgroup is read even when POOLSHIM_NUM_THREADS wins, so the report shows what the
  // machine would have allowed. It happens once per process.
  CgroupLimit cgroup = read_cgroup_limit();
  in.cgroup = &cgroup;
  Budget b = compute_budget(in);
  POOLSHIM_LOG(info, "budget: %zu thread%s from %s", b.threads, b.threads == 1 ? "" : "s",
               b.source);
  POOLSHIM_LOG(debug, "budget: affinity mask %zu CPUs, online %zu, cgroup: %s", b.affinity_cpus,
               b.online_cpus, b.cgroup_detail);
  return b;
}

}  // namespace

const Budget& current() {
  // A function-local static is initialised exactly once, thread-safely (C++11 "magic statics");
  // concurrent first callers wait for the first. Nothing is read at load time.
  static const Budget budget = gather();
  return budget;
}

}  // namespace poolshim::budget
