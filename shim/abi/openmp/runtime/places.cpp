// OpenMP thread affinity (places.h): libgomp's place list and where each member of a team goes
// (bind-var and OMP_PROC_BIND's per-level list are ICVs: state.cpp).
//
// Where members go, for a team of T threads whose primary is at place p0 of a partition of P
// places starting at place `off` (the specification's rules; where it leaves a choice, libgomp's):
//  - primary: every member at p0.
//  - close (and true): member i at the i-th place after p0 in the partition, wrapping; with T > P,
//    the first T - T % P members S = T / P to a place, the last T % P one more to each place from
//    p0 on.
//  - spread, T <= P: the partition is cut into T runs of consecutive places (the first P % T of
//    them one place longer); member i goes to the first place of the i-th run after the
//    primary's, which becomes its partition (the primary stays at p0, its run its partition).
//  - spread, T > P: as close, and each member's partition is its own place.
#include "abi/openmp/runtime/places.h"

#include <pthread.h>
#include <sched.h>

#include <new>

#include "abi/openmp/runtime/libgomp.h"
#include "budget/affinity.h"
#include "core/placement.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// libgomp's place list as CPU sets (loaded once, on first need).
pthread_once_t g_places_once = PTHREAD_ONCE_INIT;
cpu_set_t* g_sets = nullptr;
unsigned g_count = 0;

using NumPlacesFn = int (*)();
using PlaceProcsFn = int (*)(int);
using PlaceIdsFn = void (*)(int, int*);

void load_places() {
  auto num = reinterpret_cast<NumPlacesFn>(real_function("omp_get_num_places", "OMP_4.5"));
  auto procs = reinterpret_cast<PlaceProcsFn>(real_function("omp_get_place_num_procs", "OMP_4.5"));
  auto ids = reinterpret_cast<PlaceIdsFn>(real_function("omp_get_place_proc_ids", "OMP_4.5"));
  if (num == nullptr || procs == nullptr || ids == nullptr) return;
  const int count = num();
  if (count <= 0) return;
  cpu_set_t* sets = new (std::nothrow) cpu_set_t[static_cast<size_t>(count)];
  if (sets == nullptr) return;
  for (int i = 0; i < count; ++i) budget::place_cpus_from(procs, ids, i, &sets[i]);
  g_sets = sets;
  g_count = static_cast<unsigned>(count);
}

void bind_thread(int place) {
  if (place >= 0 && static_cast<unsigned>(place) < g_count)
    core::placement::bind(g_sets[place], place);
}

// Which place (counted from p0 in the partition) member m of a close team of n on p places has.
unsigned close_index(unsigned n, unsigned p, unsigned m) {
  if (n <= p) return m;
  const unsigned per = n / p, rest = n % p;
  return m < n - rest ? m / per : m - (n - rest);
}

}  // namespace

const cpu_set_t* place_cpus(int place) {
  return place >= 0 && static_cast<unsigned>(place) < num_places() ? &g_sets[place] : nullptr;
}

unsigned num_places() {
  pthread_once(&g_places_once, load_places);
  return g_count;
}

void ensure_placed(PlaceState* state) {
  if (state->place >= 0 || num_places() == 0) return;
  bind_thread(0);
  *state = PlaceState{0, 0, g_count};
}

TeamPlaces team_places(PlaceState* caller, int bind_var, unsigned clause, unsigned n) {
  TeamPlaces tp;
  if (num_places() == 0) return tp;
  ensure_placed(caller);
  tp.primary = *caller;
  if (n > 1 && bind_var != kBindFalse) tp.bind = clause != 0 ? static_cast<int>(clause) : bind_var;
  return tp;
}

PlaceState member_place(const TeamPlaces& tp, unsigned n, unsigned m) {
  const PlaceState& p0 = tp.primary;
  if (tp.bind == kBindFalse || p0.len == 0) return m == 0 ? p0 : PlaceState{};
  const unsigned rel0 = static_cast<unsigned>(p0.place) - p0.off;
  PlaceState r = p0;
  if (tp.bind == kBindSpread && n <= p0.len) {
    const unsigned per = p0.len / n, rest = p0.len % n, cut = rest * (per + 1);
    const unsigned k0 = rel0 < cut ? rel0 / (per + 1) : rest + (rel0 - cut) / per;
    const unsigned k = (k0 + m) % n;
    const unsigned start = k < rest ? k * (per + 1) : cut + (k - rest) * per;
    r.off = p0.off + start;
    r.len = k < rest ? per + 1 : per;
    if (m != 0) r.place = static_cast<int>(r.off);
  } else if (tp.bind != kBindPrimary) {
    r.place = static_cast<int>(p0.off + (rel0 + close_index(n, p0.len, m)) % p0.len);
    if (tp.bind == kBindSpread) {  // more members than places: a place each as partition
      r.off = static_cast<unsigned>(r.place);
      r.len = 1;
    }
  }
  // With true (any placement will do), libgomp leaves a thread that is bound already where it is
  // and only binds new ones; so do we.
  if (m != 0 && (tp.bind != kBindTrue || !core::placement::is_bound())) bind_thread(r.place);
  return r;
}

}  // namespace poolshim::abi::openmp::runtime
