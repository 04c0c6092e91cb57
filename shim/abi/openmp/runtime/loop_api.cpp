// The GOMP_loop_*, GOMP_parallel_loop_*, GOMP_sections_* and GOMP_ordered_* entry points of the
// native runtime, over loop.cpp. The nonmonotonic dynamic spellings hand their chunks out in any
// order (kDynamicAnyOrder: stealing, loop_steal.cpp); the other nonmonotonic and
// maybe_nonmonotonic spellings are the same schedules as without (libgomp treats them all alike).
#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"

using namespace poolshim::abi::openmp::runtime;

extern "C" {

#define PSN_LOOP(kind, sched)                                                                    \
  bool psn_GOMP_loop_##kind##_start(long s, long e, long incr, long chunk, long* is, long* ie) { \
    return loop_start(sched, s, e, incr, chunk, false, is, ie);                                  \
  }                                                                                              \
  bool psn_GOMP_loop_##kind##_next(long* is, long* ie) { return loop_next(is, ie); }             \
  bool psn_GOMP_loop_ordered_##kind##_start(long s, long e, long incr, long chunk, long* is,     \
                                            long* ie) {                                          \
    return loop_start(sched, s, e, incr, chunk, true, is, ie);                                   \
  }                                                                                              \
  bool psn_GOMP_loop_ordered_##kind##_next(long* is, long* ie) { return loop_next(is, ie); }     \
  void psn_GOMP_parallel_loop_##kind(void (*fn)(void*), void* data, unsigned nt, long s, long e, \
                                     long incr, long chunk, unsigned flags) {                    \
    set_bind_clause(flags);                                                                      \
    unsigned n = team_size_for(nt);                                                              \
    run_region(fn, data, n, preset_loop(n, sched, s, e, incr, chunk));                           \
  }
PSN_LOOP(static, kStatic)
PSN_LOOP(dynamic, kDynamic)
PSN_LOOP(guided, kGuided)
#undef PSN_LOOP

bool psn_GOMP_loop_nonmonotonic_dynamic_start(long s, long e, long incr, long chunk, long* is,
                                              long* ie) {
  return loop_start(kDynamicAnyOrder, s, e, incr, chunk, false, is, ie);
}
bool psn_GOMP_loop_nonmonotonic_guided_start(long s, long e, long incr, long chunk, long* is,
                                             long* ie) {
  return loop_start(kGuided, s, e, incr, chunk, false, is, ie);
}
bool psn_GOMP_loop_runtime_start(long s, long e, long incr, long* is, long* ie) {
  return loop_start(0, s, e, incr, 0, false, is, ie);
}
bool psn_GOMP_loop_ordered_runtime_start(long s, long e, long incr, long* is, long* ie) {
  return loop_start(0, s, e, incr, 0, true, is, ie);
}
bool psn_GOMP_loop_next(long* is, long* ie) { return loop_next(is, ie); }

void psn_GOMP_parallel_loop_nonmonotonic_dynamic(void (*fn)(void*), void* data, unsigned nt, long s,
                                                 long e, long incr, long chunk, unsigned flags) {
  set_bind_clause(flags);
  unsigned n = team_size_for(nt);
  run_region(fn, data, n, preset_loop(n, kDynamicAnyOrder, s, e, incr, chunk));
}
void psn_GOMP_parallel_loop_nonmonotonic_guided(void (*fn)(void*), void* data, unsigned nt, long s,
                                                long e, long incr, long chunk, unsigned flags) {
  set_bind_clause(flags);
  unsigned n = team_size_for(nt);
  run_region(fn, data, n, preset_loop(n, kGuided, s, e, incr, chunk));
}
void psn_GOMP_parallel_loop_runtime(void (*fn)(void*), void* data, unsigned nt, long s, long e,
                                    long incr, unsigned flags) {
  set_bind_clause(flags);
  unsigned n = team_size_for(nt);
  run_region(fn, data, n, preset_loop(n, 0, s, e, incr, 0));
}

void psn_GOMP_loop_end() { loop_end(true); }
void psn_GOMP_loop_end_nowait() { loop_end(false); }

void psn_GOMP_ordered_start() { ordered_start(); }
void psn_GOMP_ordered_end() {}

// Sections: a dynamic loop over section numbers 1..count, one at a time; 0 means none left.
unsigned psn_GOMP_sections_start(unsigned count) {
  long is, ie;
  return loop_start(kDynamic, 1, static_cast<long>(count) + 1, 1, 1, false, &is, &ie)
             ? static_cast<unsigned>(is)
             : 0;
}
unsigned psn_GOMP_sections_next() {
  long is, ie;
  return loop_next(&is, &ie) ? static_cast<unsigned>(is) : 0;
}
void psn_GOMP_parallel_sections(void (*fn)(void*), void* data, unsigned nt, unsigned count,
                                unsigned flags) {
  set_bind_clause(flags);
  unsigned n = team_size_for(nt);
  run_region(fn, data, n, preset_loop(n, kDynamic, 1, static_cast<long>(count) + 1, 1, 1));
}
void psn_GOMP_sections_end() { loop_end(true); }
void psn_GOMP_sections_end_nowait() { loop_end(false); }

}  // extern "C"
