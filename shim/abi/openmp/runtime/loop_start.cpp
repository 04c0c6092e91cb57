// The native runtime's GOMP 5.0 worksharing starts and the rest of the loop family
// (loop.h): GOMP_loop_start / GOMP_loop_ordered_start and their ull twins (a `sched`
// number, task `reductions`, the `mem` block), every GOMP_loop_ull_* start and next,
// GOMP_sections2_start, GOMP_scope_start, and the old GOMP_parallel_loop_*_start /
// GOMP_parallel_sections_start that GOMP_parallel_end closes.
#include <limits.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"

using namespace poolshim::abi::openmp::runtime;

namespace {

struct Sections {
  unsigned count;
};

void init_sections(WorkShare* w, void* arg) {
  unsigned count = static_cast<Sections*>(arg)->count;
  loop_init(w, kDynamic, 1, static_cast<long>(count) + 1, 1, 1, false);
}

void init_nothing(WorkShare*, void*) {}

}  // namespace

extern "C" {

bool psn_GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long* istart,
                         long* iend, uintptr_t* reductions, void** mem) {
  int kind = resolve_sched(any_order(sched), &chunk);
  return loop_begin(kind, start, end, incr, chunk, false, reductions, mem, istart, iend);
}

bool psn_GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                 long* istart, long* iend, uintptr_t* reductions, void** mem) {
  int kind = resolve_sched(sched, &chunk);
  return loop_begin(kind, start, end, incr, chunk, true, reductions, mem, istart, iend);
}

bool psn_GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                             ull* istart, ull* iend, uintptr_t* reductions, void** mem) {
  int kind = resolve_sched(any_order(sched), &chunk);
  return loop_ull_begin(kind, up, start, end, incr, chunk, false, reductions, mem, istart, iend);
}

bool psn_GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                     ull* istart, ull* iend, uintptr_t* reductions, void** mem) {
  int kind = resolve_sched(sched, &chunk);
  return loop_ull_begin(kind, up, start, end, incr, chunk, true, reductions, mem, istart, iend);
}

// GOMP_loop_ull_{static,dynamic,guided}_start, their ordered and nonmonotonic spellings.
#define PSN_ULL(kind, sched)                                                                 \
  bool psn_GOMP_loop_ull_##kind##_start(bool up, ull s, ull e, ull incr, ull chunk, ull* is, \
                                        ull* ie) {                                           \
    int k = resolve_sched(sched, &chunk);                                                    \
    return loop_ull_begin(k, up, s, e, incr, chunk, false, nullptr, nullptr, is, ie);        \
  }                                                                                          \
  bool psn_GOMP_loop_ull_ordered_##kind##_start(bool up, ull s, ull e, ull incr, ull chunk,  \
                                                ull* is, ull* ie) {                          \
    int k = resolve_sched(sched, &chunk);                                                    \
    return loop_ull_begin(k, up, s, e, incr, chunk, true, nullptr, nullptr, is, ie);         \
  }
PSN_ULL(static, kStatic)
PSN_ULL(dynamic, kDynamic)
PSN_ULL(guided, kGuided)
#undef PSN_ULL

bool psn_GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, ull s, ull e, ull incr, ull chunk,
                                                  ull* is, ull* ie) {
  int k = resolve_sched(kDynamicAnyOrder, &chunk);
  return loop_ull_begin(k, up, s, e, incr, chunk, false, nullptr, nullptr, is, ie);
}

bool psn_GOMP_loop_ull_runtime_start(bool up, ull s, ull e, ull incr, ull* is, ull* ie) {
  ull chunk = 0;
  int k = resolve_sched(0, &chunk);
  return loop_ull_begin(k, up, s, e, incr, chunk, false, nullptr, nullptr, is, ie);
}
bool psn_GOMP_loop_ull_ordered_runtime_start(bool up, ull s, ull e, ull incr, ull* is, ull* ie) {
  ull chunk = 0;
  int k = resolve_sched(0, &chunk);
  return loop_ull_begin(k, up, s, e, incr, chunk, true, nullptr, nullptr, is, ie);
}
bool psn_GOMP_loop_ull_next(ull* is, ull* ie) { return loop_ull_next(is, ie); }

// Sections with task reductions or a mem block (GOMP 5.0): section numbers 1..count.
unsigned psn_GOMP_sections2_start(unsigned count, uintptr_t* reductions, void** mem) {
  Sections a{count};
  bool first;
  ws_begin(init_sections, &a, reductions, mem, &first);
  long is, ie;
  return loop_next(&is, &ie) ? static_cast<unsigned>(is) : 0;
}

// scope with task reductions. The compiler never ends a scope's construct (it closes with
// GOMP_workshare_task_reduction_unregister and a barrier), so each member leaves it once it
// has joined the reductions: the last one frees it.
void psn_GOMP_scope_start(uintptr_t* reductions) {
  bool first;
  ws_begin(init_nothing, nullptr, reductions, nullptr, &first);
  ws_leave();
}

// The old combined starts: the region's first construct is set up before it starts; the
// caller runs member 0 on return, GOMP_parallel_end closes the region.
void psn_GOMP_parallel_loop_static_start(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                         long incr, long chunk) {
  unsigned n = team_size_for(nt);
  start_region(fn, data, n, preset_loop(n, kStatic, s, e, incr, chunk));
}
void psn_GOMP_parallel_loop_dynamic_start(void (*fn)(void*), void* data, unsigned nt, long s,
                                          long e, long incr, long chunk) {
  unsigned n = team_size_for(nt);
  start_region(fn, data, n, preset_loop(n, kDynamic, s, e, incr, chunk));
}
void psn_GOMP_parallel_loop_guided_start(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                         long incr, long chunk) {
  unsigned n = team_size_for(nt);
  start_region(fn, data, n, preset_loop(n, kGuided, s, e, incr, chunk));
}
void psn_GOMP_parallel_loop_runtime_start(void (*fn)(void*), void* data, unsigned nt, long s,
                                          long e, long incr) {
  unsigned n = team_size_for(nt);
  start_region(fn, data, n, preset_loop(n, 0, s, e, incr, 0));
}
void psn_GOMP_parallel_sections_start(void (*fn)(void*), void* data, unsigned nt, unsigned count) {
  unsigned n = team_size_for(nt);
  start_region(fn, data, n, preset_loop(n, kDynamic, 1, static_cast<long>(count) + 1, 1, 1));
}

}  // extern "C"
