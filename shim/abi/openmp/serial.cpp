// The OpenMP entry points' meaning in a serial program, for a process where no libgomp can be
// found (forward.cpp, step 3): a program that links the shim for its omp_* calls and
// never loads libgomp. Only what the specification defines for one thread is here: the team
// queries (thread 0 of a team of 1), a parallel region that runs its body once on the caller,
// barriers, critical and atomic sections and single constructs that have nobody to wait for,
// locks (a set flag; a nested lock's count), the clocks. Every other row returns 0 and says so
// once (forward.cpp, step 4).
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abi/openmp/entry.h"
#include "base/clock.h"
#include "symbols/openmp_rows.h"

namespace poolshim::abi::openmp {
namespace {

namespace rows = symbols::openmp_rows;

int zero() { return 0; }
int one() { return 1; }
void nothing() {}
bool yes() { return true; }
int procs() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}
int team_size(int level) { return level == 0 ? 1 : -1; }
int ancestor(int level) { return level == 0 ? 0 : -1; }
double wtime() { return static_cast<double>(base::now_ns()) / 1e9; }
double wtick() {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}
// GOMP_parallel(fn, data, num_threads, flags): the body once, on the caller.
void parallel(void (*fn)(void*), void* data, unsigned, unsigned) { fn(data); }

// Locks: libgomp's omp_lock_t holds an int; omp_nest_lock_t starts with {int lock; int count}.
struct NestLock {
  int lock;
  int count;
};
void lock_init(int* l) { *l = 0; }
void lock_set(int* l) { *l = 1; }
void lock_unset(int* l) { *l = 0; }
int lock_test(int* l) { return *l == 0 ? (*l = 1) : 0; }
void nest_init(NestLock* l) { l->lock = 0, l->count = 0; }
void nest_set(NestLock* l) { ++l->count; }
void nest_unset(NestLock* l) { --l->count; }
int nest_test(NestLock* l) { return ++l->count; }

struct Fallback {
  uint16_t row;  // the name's first row in symbols/openmp.def (symbols/openmp_rows.h)
  void* fn;
};
#define FN(f) reinterpret_cast<void*>(&f)
#define ROW(name) rows::checked<rows::row_of(name)>()
const Fallback kFallbacks[] = {
    {ROW("omp_get_thread_num"), FN(zero)},
    {ROW("omp_get_num_threads"), FN(one)},
    {ROW("omp_get_max_threads"), FN(one)},
    {ROW("omp_get_thread_limit"), FN(one)},
    {ROW("omp_get_num_procs"), FN(procs)},
    {ROW("omp_in_parallel"), FN(zero)},
    {ROW("omp_get_level"), FN(zero)},
    {ROW("omp_get_active_level"), FN(zero)},
    {ROW("omp_get_team_size"), FN(team_size)},
    {ROW("omp_get_ancestor_thread_num"), FN(ancestor)},
    {ROW("omp_get_dynamic"), FN(zero)},
    {ROW("omp_get_nested"), FN(zero)},
    {ROW("omp_get_max_active_levels"), FN(one)},
    {ROW("omp_set_num_threads"), FN(nothing)},
    {ROW("omp_set_dynamic"), FN(nothing)},
    {ROW("omp_set_nested"), FN(nothing)},
    {ROW("omp_set_max_active_levels"), FN(nothing)},
    {ROW("omp_get_num_teams"), FN(one)},
    {ROW("omp_get_team_num"), FN(zero)},
    {ROW("omp_is_initial_device"), FN(one)},
    {ROW("omp_get_num_devices"), FN(zero)},
    {ROW("omp_get_wtime"), FN(wtime)},
    {ROW("omp_get_wtick"), FN(wtick)},
    {ROW("omp_init_lock"), FN(lock_init)},
    {ROW("omp_destroy_lock"), FN(lock_init)},
    {ROW("omp_set_lock"), FN(lock_set)},
    {ROW("omp_unset_lock"), FN(lock_unset)},
    {ROW("omp_test_lock"), FN(lock_test)},
    {ROW("omp_init_nest_lock"), FN(nest_init)},
    {ROW("omp_destroy_nest_lock"), FN(nest_init)},
    {ROW("omp_set_nest_lock"), FN(nest_set)},
    {ROW("omp_unset_nest_lock"), FN(nest_unset)},
    {ROW("omp_test_nest_lock"), FN(nest_test)},
    {ROW("GOMP_parallel"), FN(parallel)},
    {ROW("GOMP_parallel_start"), FN(nothing)},
    {ROW("GOMP_parallel_end"), FN(nothing)},
    {ROW("GOMP_barrier"), FN(nothing)},
    {ROW("GOMP_critical_start"), FN(nothing)},
    {ROW("GOMP_critical_end"), FN(nothing)},
    {ROW("GOMP_critical_name_start"), FN(nothing)},
    {ROW("GOMP_critical_name_end"), FN(nothing)},
    {ROW("GOMP_atomic_start"), FN(nothing)},
    {ROW("GOMP_atomic_end"), FN(nothing)},
    {ROW("GOMP_single_start"), FN(yes)},
};
#undef FN
#undef ROW

}  // namespace

void* serial_fallback(const char* name) {
  for (const Fallback& f : kFallbacks)
    if (strcmp(rows::name(f.row), name) == 0) return f.fn;
  return nullptr;
}

}  // namespace poolshim::abi::openmp
