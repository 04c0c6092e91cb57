// The process's budget, gathered once: see budget.h. The rules live in compute.cpp.
#include "budget/budget.h"

#include <pthread.h>

#include <atomic>

#include "base/first_use.h"
#include "budget/affinity.h"
#include "budget/cgroup.h"
#include "budget/compute.h"
#include "config/options.h"
#include "diag/log.h"

namespace poolshim::budget {
namespace {

// POOLSHIM_NUM_THREADS is honoured whatever it says, but a budget more than twice what the
// machine allows (affinity mask and cgroup quota, the budget it would have had) is almost always
// a mistake: threads beyond the CPUs only take turns, and each call waits for the slowest. One
// line, even with logging off, like any other questionable input.
void warn_if_oversubscribed(const Inputs& in, const Budget& b) {
  Inputs machine = in;
  machine.env_threads = 0;
  size_t cpus = compute_budget(machine).threads;
  if (b.threads > 2 * cpus)
    diag::warn_once(diag::LogSite::budget_above_cpus,
                    "budget %zu is above the %zu CPU%s available; honoured as "
                    "POOLSHIM_NUM_THREADS asks, but threads beyond the CPUs only take turns",
                    b.threads, cpus, cpus == 1 ? "" : "s");
}

Budget gather() {
  Inputs in;
  in.env_threads = config::options().num_threads;
  // =cores without a readable topology keeps the machine's budget (env_cores 0).
  if (config::options().num_threads_cores) in.env_cores = physical_cores();
  in.affinity_cpus = affinity_cpus();
  in.mask_before_pin = process_cpus() != nullptr;
  in.online_cpus = online_cpus();
  // The cgroup is read even when POOLSHIM_NUM_THREADS wins, so the report shows what the
  // machine would have allowed. It happens once per process.
  CgroupLimit cgroup = read_cgroup_limit();
  in.cgroup = &cgroup;
  Budget b = compute_budget(in);
  if (in.env_threads > 0) warn_if_oversubscribed(in, b);
  POOLSHIM_LOG(info, "budget: %zu thread%s from %s", b.threads, b.threads == 1 ? "" : "s",
               b.source);
  POOLSHIM_LOG(debug, "budget: affinity mask %zu CPUs, online %zu, cgroup: %s", b.affinity_cpus,
               b.online_cpus, b.cgroup_detail);
  return b;
}

// Gathered on first use (nothing is read at load time) by a pthread_once routine, not a
// function-local static: a fork while another thread gathers must leave the child able to
// gather again (base/first_use.h). g_ready publishes g_budget to the hot path.
Budget g_budget;
std::atomic<bool> g_ready{false};
pthread_once_t g_once = PTHREAD_ONCE_INIT;

void gather_once() {
  base::first_use("budget");
  g_budget = gather();
  g_ready.store(true, std::memory_order_release);
}

}  // namespace

const Budget& current() {
  if (__builtin_expect(!g_ready.load(std::memory_order_acquire), 0))
    pthread_once(&g_once, gather_once);
  return g_budget;
}

}  // namespace poolshim::budget
