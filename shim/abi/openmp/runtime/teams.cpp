// Native host teams: GOMP_teams_reg (a teams construct outside any target region),
// GOMP_teams4 and GOMP_teams (one inside a target region's body, run by the host fallback of
// target.cpp), the omp_* teams queries and the two global teams ICVs.
//
// As libgomp does on the host (its teams.c, target.c and icv.c, read for the semantics): the
// teams run one after another on the encountering thread, which is the initial thread of each;
// omp_get_num_teams() and omp_get_team_num() read the thread's own place (ThreadState), which a
// parallel region's members inherit from their creator. nteams-var (OMP_NUM_TEAMS,
// omp_set_num_teams) and teams-thread-limit-var (OMP_TEAMS_THREAD_LIMIT,
// omp_set_teams_thread_limit) are global, as libgomp's; read as libgomp's parse_int reads them (a
// positive int, blanks around it allowed; anything else ignored).
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include <atomic>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "config/options.h"

namespace poolshim::abi::openmp::runtime {
namespace {

std::atomic<int> g_nteams{0};              // nteams-var: 0 = implementation defined
std::atomic<int> g_teams_thread_limit{0};  // teams-thread-limit-var: 0 = none
pthread_once_t g_teams_once = PTHREAD_ONCE_INIT;

bool parse_positive_int(const char* name, int* out) {
  const char* p = config::raw_value(name);
  if (p == nullptr) return false;
  while (isspace(static_cast<unsigned char>(*p))) ++p;
  if (*p == '\0') return false;
  errno = 0;
  char* end;
  unsigned long v = strtoul(p, &end, 10);
  if (errno != 0 || end == p || static_cast<long>(v) <= 0) return false;
  while (isspace(static_cast<unsigned char>(*end))) ++end;
  if (*end != '\0' || v > INT_MAX) return false;
  *out = static_cast<int>(v);
  return true;
}

void load_teams() {
  int v;
  if (parse_positive_int("OMP_NUM_TEAMS", &v)) g_nteams.store(v, std::memory_order_relaxed);
  if (parse_positive_int("OMP_TEAMS_THREAD_LIMIT", &v))
    g_teams_thread_limit.store(v, std::memory_order_relaxed);
}

int nteams_var() {
  pthread_once(&g_teams_once, load_teams);
  return g_nteams.load(std::memory_order_relaxed);
}
int teams_thread_limit_var() {
  pthread_once(&g_teams_once, load_teams);
  return g_teams_thread_limit.load(std::memory_order_relaxed);
}

// thread-limit-var as the teams constructs set it: above INT_MAX means none.
unsigned as_thread_limit(unsigned v) { return v > INT_MAX ? 0xffffffffu : v; }

}  // namespace
}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_GOMP_teams_reg(void (*fn)(void*), void* data, unsigned num_teams, unsigned thread_limit,
                        unsigned flags) {
  (void)flags;
  if (thread_limit == 0) thread_limit = static_cast<unsigned>(teams_thread_limit_var());
  unsigned old_limit = 0;
  if (thread_limit != 0) {
    old_limit = icv().thread_limit;
    icv().thread_limit = as_thread_limit(thread_limit);
  }
  if (num_teams == 0) {
    int n = nteams_var();
    num_teams = n != 0 ? static_cast<unsigned>(n) : 3;  // libgomp's choice: 3
  }
  ThreadState& s = me();
  s.num_teams = num_teams - 1;
  // Regions inside fn restore the thread's state when they end, team_num included.
  for (s.team_num = 0; s.team_num < num_teams; ++s.team_num) fn(data);
  s.num_teams = 0;
  s.team_num = 0;
  if (thread_limit != 0) icv().thread_limit = old_limit;
}

void psn_GOMP_teams(unsigned num_teams, unsigned thread_limit) {
  (void)num_teams;
  if (thread_limit != 0) icv().thread_limit = as_thread_limit(thread_limit);
}

bool psn_GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high, unsigned thread_limit,
                     bool first) {
  (void)num_teams_high;
  ThreadState& s = me();
  if (first) {
    if (thread_limit != 0) s.icv.thread_limit = as_thread_limit(thread_limit);
    if (num_teams_low == 0) num_teams_low = 1;
    s.num_teams = num_teams_low - 1;
    s.team_num = 0;
    return true;
  }
  if (s.team_num == s.num_teams) return false;
  ++s.team_num;
  return true;
}

int psn_omp_get_num_teams() { return static_cast<int>(me().num_teams) + 1; }
int psn_omp_get_team_num() { return static_cast<int>(me().team_num); }

void psn_omp_set_num_teams(int n) {
  nteams_var();  // the environment is read first, so that it cannot overwrite this later
  if (n >= 0) g_nteams.store(n, std::memory_order_relaxed);
}
int psn_omp_get_max_teams() { return nteams_var(); }
void psn_omp_set_teams_thread_limit(int n) {
  teams_thread_limit_var();
  if (n >= 0) g_teams_thread_limit.store(n, std::memory_order_relaxed);
}
int psn_omp_get_teams_thread_limit() { return teams_thread_limit_var(); }

}  // extern "C"
