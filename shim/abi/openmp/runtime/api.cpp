// The omp_* team and ICV queries of the native runtime (C spellings). The rest of the omp_*
// API (locks, clocks, devices, allocators, affinity, ...) does not depend on whose thread runs
// it: those rows forward to libgomp even with POOLSHIM_OPENMP=shim (docs/openmp.md).
#include <limits.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/libgomp.h"
#include "abi/openmp/runtime/state.h"

using namespace poolshim::abi::openmp::runtime;

namespace {

// The team at a nesting level (1 = outermost) seen from the calling thread, with the thread's
// number in it; false when level is not in [0, current level].
bool at_level(int level, Team** team, unsigned* num) {
  ThreadState& s = me();
  Team* t = s.team;
  unsigned n = s.num;
  int cur = t ? static_cast<int>(t->level) : 0;
  if (level < 0 || level > cur) return false;
  while (t != nullptr && static_cast<int>(t->level) > level) {
    n = t->parent_num;
    t = t->parent;
  }
  *team = level == 0 ? nullptr : t;
  *num = level == 0 ? 0 : n;
  return true;
}

constexpr int kSupportedLevels = UCHAR_MAX;

}  // namespace

extern "C" {

int psn_omp_get_thread_num() { return static_cast<int>(me().num); }
int psn_omp_get_num_threads() {
  Team* t = me().team;
  return t ? static_cast<int>(t->n) : 1;
}
int psn_omp_get_max_threads() {
  if (nthreads_is_libgomps(me())) icv().nthreads = team_size_hint();
  return static_cast<int>(icv().nthreads);
}
int psn_omp_in_parallel() {
  Team* t = me().team;
  return t != nullptr && t->active_level > 0;
}
void psn_omp_set_num_threads(int n) {
  icv().nthreads = n > 0 ? static_cast<unsigned>(n) : 1;
  // Outside a region, libgomp's nthreads-var is the one a region reads (parallel.cpp).
  if (nthreads_is_libgomps(me())) {
    static std::atomic<void (*)(int)> real{nullptr};
    auto f = real.load(std::memory_order_acquire);
    if (f == nullptr) {
      f = reinterpret_cast<void (*)(int)>(real_function("omp_set_num_threads", "OMP_1.0"));
      real.store(f, std::memory_order_release);
    }
    if (f != nullptr) f(n);
  }
}
int psn_omp_get_level() {
  Team* t = me().team;
  return t ? static_cast<int>(t->level) : 0;
}
int psn_omp_get_active_level() {
  Team* t = me().team;
  return t ? static_cast<int>(t->active_level) : 0;
}
int psn_omp_get_team_size(int level) {
  Team* t;
  unsigned num;
  if (!at_level(level, &t, &num)) return -1;
  return t ? static_cast<int>(t->n) : 1;
}
int psn_omp_get_ancestor_thread_num(int level) {
  Team* t;
  unsigned num;
  if (!at_level(level, &t, &num)) return -1;
  return static_cast<int>(num);
}
int psn_omp_get_dynamic() { return icv().dyn; }
void psn_omp_set_dynamic(int d) { icv().dyn = d != 0; }
int psn_omp_get_nested() { return icv().max_active_levels > 1; }
void psn_omp_set_nested(int n) { icv().max_active_levels = n ? kSupportedLevels : 1; }
int psn_omp_get_max_active_levels() { return static_cast<int>(icv().max_active_levels); }
void psn_omp_set_max_active_levels(int n) {
  if (n >= 0) icv().max_active_levels = n > kSupportedLevels ? kSupportedLevels : n;
}
int psn_omp_get_supported_active_levels() { return kSupportedLevels; }
int psn_omp_get_thread_limit() {
  unsigned l = icv().thread_limit;
  return l > INT_MAX ? INT_MAX : static_cast<int>(l);
}
void psn_omp_get_schedule(int* kind, int* chunk) {
  *kind = icv().run_sched;
  *chunk = icv().run_chunk;
}
void psn_omp_set_schedule(int kind, int chunk) {
  int k = kind & ~static_cast<int>(0x80000000u);  // omp_sched_monotonic is a modifier bit
  if (k < kStatic || k > kAuto) return;
  icv().run_sched = k;
  icv().run_chunk = chunk < 1 ? (k == kStatic ? 0 : 1) : chunk;
}

}  // extern "C"
