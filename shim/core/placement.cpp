// A woken worker steps off its waker's CPU (placement.h).
#include "core/placement.h"

#include <sched.h>

#include <atomic>

#include "core/tls.h"

namespace poolshim::core::placement {

namespace {

// The CPU of the last waker, or -1. Relaxed: a hint; a stale value costs one needless move or
// one missed one.
std::atomic<int> g_waker_cpu{-1};

// The calling thread's binding: the tag it is bound to (-1: its own mask), and that mask.
POOLSHIM_FAST_TLS thread_local int t_bound_tag = -1;
POOLSHIM_FAST_TLS thread_local cpu_set_t t_own_mask;

}  // namespace

bool bind(const cpu_set_t& cpus, int tag) {
  if (t_bound_tag == tag) return true;
  if (t_bound_tag < 0 && sched_getaffinity(0, sizeof t_own_mask, &t_own_mask) != 0) return false;
  if (sched_setaffinity(0, sizeof cpus, &cpus) != 0) return false;
  t_bound_tag = tag;
  return true;
}

bool is_bound() { return t_bound_tag >= 0; }

void unbind() {
  if (__builtin_expect(t_bound_tag < 0, 1)) return;
  sched_setaffinity(0, sizeof t_own_mask, &t_own_mask);
  t_bound_tag = -1;
}

void note_waker() { g_waker_cpu.store(sched_getcpu(), std::memory_order_relaxed); }

void step_off_waker() {
  const int me = sched_getcpu();
  if (me < 0 || me != g_waker_cpu.load(std::memory_order_relaxed)) return;
  // cpu_set_t holds 1024 CPUs; on a larger machine sched_getaffinity fails (EINVAL) and the
  // worker stays where it is.
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0 || !CPU_ISSET(me, &mask) ||
      CPU_COUNT(&mask) < 2)
    return;
  cpu_set_t away = mask;
  CPU_CLR(me, &away);
  // The kernel moves a thread off a CPU its new mask excludes before the call returns; the mask
  // as it was then lets its balancer place the thread from there as usual. The second call can
  // only fail if a cpuset change in between left the old mask no allowed CPU; the worker then
  // keeps the narrower mask, which still holds every CPU but one of what it may use.
  if (sched_setaffinity(0, sizeof away, &away) == 0) sched_setaffinity(0, sizeof mask, &mask);
}

}  // namespace poolshim::core::placement
