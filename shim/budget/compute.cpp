// The budget as a pure function: see compute.h.
#include "budget/compute.h"

#include "base/text.h"

namespace poolshim::budget {
namespace {

const char* plural(size_t n) { return n == 1 ? "CPU" : "CPUs"; }

}  // namespace

Budget compute_budget(const Inputs& in) {
  Budget b;
  b.affinity_cpus = in.affinity_cpus;
  b.online_cpus = in.online_cpus;
  if (in.cgroup != nullptr) {
    b.cgroup_cpus = in.cgroup->cpus;
    describe_detail(*in.cgroup, b.cgroup_detail, sizeof(b.cgroup_detail));
  } else {
    base::Text(b.cgroup_detail).append("cgroup not consulted");
  }

  if (in.env_threads == 0 && in.env_cores > 0) {
    Inputs machine = in;
    machine.env_cores = 0;
    Budget m = compute_budget(machine);
    b.threads = in.env_cores < m.threads ? in.env_cores : m.threads;
    base::Text(b.source).appendf("POOLSHIM_NUM_THREADS=cores (%zu physical core%s)", in.env_cores,
                                 in.env_cores == 1 ? "" : "s");
    return b;
  }

  if (in.env_threads > 0) {
    b.threads = in.env_threads;
    base::Text(b.source).appendf("POOLSHIM_NUM_THREADS=%zu", in.env_threads);
    return b;
  }

  if (in.affinity_cpus > 0) {
    b.threads = in.affinity_cpus;
    base::Text(b.source).appendf(in.mask_before_pin
                                     ? "affinity mask (%zu %s, OpenMP's places: the initial "
                                       "thread is bound to place 0)"
                                     : "affinity mask (%zu %s)",
                                 in.affinity_cpus, plural(in.affinity_cpus));
  } else if (in.online_cpus > 0) {
    b.threads = in.online_cpus;
    base::Text(b.source).appendf("online CPUs (%zu %s; affinity mask unreadable)", in.online_cpus,
                                 plural(in.online_cpus));
  } else {
    b.threads = 1;
    base::Text(b.source).append(
        "default (1 thread: neither the affinity mask nor the CPU count could be read)");
  }

  // A tie keeps the affinity mask as the source: it is the more direct constraint.
  if (in.cgroup != nullptr && in.cgroup->cpus > 0 && in.cgroup->cpus < b.threads) {
    b.threads = in.cgroup->cpus;
    describe_limit(*in.cgroup, b.source, sizeof(b.source));
    base::Text::after(b.source, sizeof(b.source))
        .appendf(" (%zu %s)", b.threads, plural(b.threads));
  }
  return b;
}

}  // namespace poolshim::budget
