// OpenMP thread affinity (places.h): libgomp's place list, OMP_PROC_BIND's list, and where each
// member of a team goes.
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
#include <strings.h>

#include <new>

#include "abi/openmp/runtime/libgomp.h"
#include "budget/affinity.h"
#include "config/options.h"
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

// OMP_PROC_BIND's list (libgomp's grammar: one of false/true, or a comma-separated list of
// master/primary/close/spread); empty when unset or invalid (libgomp then ignores it too).
constexpr unsigned kMaxLevels = 16;
pthread_once_t g_list_once = PTHREAD_ONCE_INIT;
int g_list[kMaxLevels];
unsigned g_list_len = 0;

const char* skip_space(const char* p) {
  while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;
  return p;
}

// One name at p (case-insensitive); advances p past it. -1 when none matches.
int read_bind_name(const char** p) {
  static const struct {
    const char* name;
    unsigned len;
    int bind;
  } kNames[] = {{"false", 5, kBindFalse},     {"true", 4, kBindTrue},   {"master", 6, kBindPrimary},
                {"primary", 7, kBindPrimary}, {"close", 5, kBindClose}, {"spread", 6, kBindSpread}};
  const char* s = skip_space(*p);
  for (const auto& k : kNames)
    if (strncasecmp(s, k.name, k.len) == 0) {
      *p = skip_space(s + k.len);
      return k.bind;
    }
  return -1;
}

void load_list() {
  const char* p = config::raw_value("OMP_PROC_BIND");
  if (p == nullptr) return;
  int list[kMaxLevels];
  unsigned len = 0;
  for (;;) {
    const int b = read_bind_name(&p);
    if (b < 0 || (len > 0 && b <= kBindTrue) || len == kMaxLevels) return;
    list[len++] = b;
    if (*p == '\0') break;
    if (*p != ',' || list[0] <= kBindTrue) return;
    ++p;
  }
  for (unsigned i = 0; i < len; ++i) g_list[i] = list[i];
  g_list_len = len;
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

int initial_bind() {
  if (auto real = reinterpret_cast<int (*)()>(real_function("omp_get_proc_bind", "OMP_4.0")))
    return real();
  pthread_once(&g_list_once, load_list);
  return g_list_len > 0 ? g_list[0] : kBindFalse;
}

int bind_for_level(unsigned level, int inherited) {
  pthread_once(&g_list_once, load_list);
  return level < g_list_len ? g_list[level] : inherited;
}

bool bind_is_list() {
  pthread_once(&g_list_once, load_list);
  return g_list_len > 1;
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
