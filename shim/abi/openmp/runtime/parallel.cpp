// Native parallel regions: GOMP_parallel, GOMP_parallel_start/_end and the team barrier's entry
// points, on core/gang.h's gangs.
//
// Team size, as libgomp resolves it (its parallel.c, gomp_resolve_num_threads): num_threads(1)
// is 1; inside an active region with max-active-levels <= 1, or at max-active-levels, 1; else
// the clause's value or nthreads-var; dyn-var bounds it as libgomp does (the CPUs less the load
// average); thread-limit-var caps it.
// Beyond libgomp: a region started inside a pool task (pthreadpool, ExecuTorch, poolshim) gets a
// team of 1, so pools never nest into a thread explosion.

#include <stdlib.h>

#include <cstring>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/libgomp.h"
#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/signal_mask.h"
#include "abi/openmp/runtime/state.h"
#include "budget/budget.h"
#include "core/pool.h"
#include "core/gang.h"
#include "core/tls.h"
#include "base/assert.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// libgomp's omp_get_max_threads / omp_set_num_threads, looked up once (nullptr: no libgomp).
std::atomic<int (*)()> g_real_max{nullptr};
std::atomic<bool> g_real_looked{false};
int (*real_max_threads())() {
  if (!g_real_looked.load(std::memory_order_acquire)) {
    g_real_max.store(reinterpret_cast<int (*)()>(real_function("omp_get_max_threads", "OMP_1.0")),
                     std::memory_order_relaxed);
    g_real_looked.store(true, std::memory_order_release);
  }
  return g_real_max.load(std::memory_order_relaxed);
}

// libgomp's bound under dyn-var (its config/linux/proc.c, gomp_dynamic_max_threads), so that a
// program run with OMP_DYNAMIC=true gets the teams it gets on libgomp: the CPUs it may use, at
// most nthreads-var, less the 15-minute load average (+0.1: libgomp's rounding), at least 1. The
// CPUs are the budget (the affinity mask, and a cgroup's quota where one is lower), where libgomp
// counts the mask. glibc's getloadavg is one sysinfo call: no file, no cancellation point.
unsigned dynamic_max_threads(unsigned nthreads) {
  size_t cpus = budget::current().threads;
  if (cpus == 0) cpus = 1;
  if (cpus > nthreads) cpus = nthreads;
  double load[3];
  const size_t busy = getloadavg(load, 3) == 3 ? static_cast<size_t>(load[2] + 0.1) : 0;
  return busy >= cpus ? 1 : static_cast<unsigned>(cpus - busy);
}

unsigned resolve_team_size(unsigned specified) {
  ThreadState& s = me();
  // Outside any region, nthreads-var is libgomp's for this thread: omp_set_num_threads called on
  // libgomp by handle (threadpoolctl) takes effect, and ours writes through to it (api.cpp).
  if (nthreads_is_libgomps(s))
    if (int (*f)() = real_max_threads()) s.icv.nthreads = static_cast<unsigned>(f());
  if (specified == 1) return 1;
  unsigned active = s.team ? s.team->active_level : 0;
  if (active >= 1 && s.icv.max_active_levels <= 1) return 1;
  if (active >= s.icv.max_active_levels) return 1;
  if (core::in_task()) return 1;
  unsigned n = specified != 0 ? specified : s.icv.nthreads;
  if (s.icv.dyn) {
    const unsigned dyn = dynamic_max_threads(s.icv.nthreads);
    if (dyn < n) n = dyn;
  }
  if (n > core::gang::kMaxMembers) n = core::gang::kMaxMembers;
  if (n == 0) n = 1;
  // thread-limit-var, as libgomp counts it: outside any region a cap; in a nested region the
  // threads the contention group already has busy count against it (its pool->threads_busy,
  // updated by compare-exchange: sibling members resolve at the same time).
  unsigned long limit = s.icv.thread_limit;
  if (limit == 0xffffffffu || n == 1) return n;
  if (s.team == nullptr || s.team->cg == nullptr)
    return n > limit ? static_cast<unsigned>(limit) : n;
  std::atomic<unsigned long>& busy = *s.team->cg;
  unsigned long b = busy.load(std::memory_order_relaxed);
  unsigned m;
  do {
    m = n;
    if (limit - b + 1 < m) m = static_cast<unsigned>(limit - b + 1);
  } while (!busy.compare_exchange_weak(b, b + m - 1, std::memory_order_relaxed));
  return m;
}

void init_team(Team* t, void (*fn)(void*), void* data, unsigned n) {
  ThreadState& s = me();
  t->n = n;
  t->level = (s.team ? s.team->level : 0) + 1;
  t->active_level = (s.team ? s.team->active_level : 0) + (n > 1 ? 1 : 0);
  t->parent = s.team;
  t->parent_num = s.num;
  t->fn = fn;
  t->data = data;
  t->member_icv = s.icv;
  // libgomp: a list in OMP_NUM_THREADS gives each level its own nthreads-var.
  t->member_icv.nthreads = nthreads_for_level(t->level, s.icv.nthreads);
  // Where members go (places.h): the caller's bind-var, or the proc_bind clause; the members'
  // bind-var is OMP_PROC_BIND's entry for the new level. A pool task's thread is not OpenMP's to
  // place (its team is of 1 anyway).
  t->places = core::in_task() ? TeamPlaces{} : team_places(&s.place, s.icv.bind, s.bind_clause, n);
  s.bind_clause = 0;
  t->member_icv.bind = bind_for_level(t->level, s.icv.bind);
  t->num_teams = s.num_teams;
  t->team_num = s.team_num;
  t->def_allocator = s.def_allocator;
  if (n > 1) capture_program_mask();
  // The contention group: an outermost region starts one with its n threads busy; a nested one
  // took n - 1 more in resolve_team_size when thread-limit-var is set.
  if (s.team == nullptr || s.team->cg == nullptr) {
    t->cg_busy.store(n, std::memory_order_relaxed);
    t->cg = &t->cg_busy;
  } else {
    t->cg = s.team->cg;
    if (s.icv.thread_limit != 0xffffffffu) t->cg_added = n - 1;
  }
}

// Makes the calling thread member m of t; returns what it was, to restore.
ThreadState enter(Team* t, unsigned m) {
  POOLSHIM_ASSERT(t->n >= 1 && m < t->n);
  ThreadState& s = me();
  ThreadState saved = s;
  s.team = t;
  s.num = m;
  s.ws_seq = 0;
  s.single_seq = 0;
  s.static_trip = 0;
  s.ws = nullptr;
  s.doacross = nullptr;
  s.icv = t->member_icv;
  s.icv_ready = true;
  s.taskgroup = t->taskgroup;  // a new implicit task: GOMP_parallel_reductions' taskgroup or none
  s.in_final = false;
  s.task = nullptr;
  s.node = nullptr;
  s.num_teams = t->num_teams;
  s.team_num = t->team_num;
  s.def_allocator = t->def_allocator;
  return saved;
}

void member_main(void* ctx, unsigned m) {
  Team* t = static_cast<Team*>(ctx);
  if (m != 0) take_program_mask();
  ThreadState saved = enter(t, m);
  me().place = member_place(t->places, t->n, m);  // binds members other than 0 to their place
  display_affinity_if_changed();
  me().task = &saved;          // unique while the implicit task runs
  if (t->preset != nullptr) {  // run_region's construct: every member starts inside it
    me().ws = t->preset;
    me().ws_seq = 1;
  }
  t->fn(t->data);
  region_member_end();  // the team's tasks are complete before a member leaves
  me() = saved;
}

// The gangs of OpenMP teams: member i of a thread's team runs on the thread that ran member i of
// its previous team when that thread comes within this window (it is idle, spinning or asleep),
// so that threadprivate data persists per thread number, as on libgomp's per-thread pools. An
// outermost region's caller (an initial thread) keeps those threads: another initial thread's
// regions at the same time get threads of their own, as each has its pool in libgomp.
constexpr long kPreferNs = 50L * 1000 * 1000;
core::gang::Policy team_gangs(const Team& t, void (*shrink)(void* ctx, unsigned m)) {
  return core::gang::Policy{kPreferNs, t.level == 1, shrink};
}

// The team has m < n members: core::gang could not start threads for the others' seats
// (Policy::shrink). Before any member ran (the others are held until this returns): what
// init_team derived from n becomes what a team of m has.
void team_shrink(Team* t, unsigned m) {
  POOLSHIM_ASSERT(m >= 1 && m < t->n);
  const unsigned less = t->n - m;
  if (t->cg_added != 0) {  // the n - 1 threads resolve_team_size took from the contention group
    t->cg->fetch_sub(less, std::memory_order_relaxed);
    t->cg_added -= less;
  }
  if (t->cg == &t->cg_busy) t->cg_busy.store(m, std::memory_order_relaxed);
  if (m == 1) t->active_level -= 1;
  t->n = m;
}
void team_shrink_ctx(void* ctx, unsigned m) { team_shrink(static_cast<Team*>(ctx), m); }

// member_main for a team whose body reads its body line (run_parallel_line): the line is on the
// caller's stack, just written, so it is a miss; its address is known before the team's first
// line arrives, so it is fetched beside the team's lines instead of after the one holding
// `data` (docs/openmp.md, "A `__kmpc` region's line in the team").
void line_member_main(void* ctx, unsigned m) {
  __builtin_prefetch(static_cast<Team*>(ctx)->body_line);
  member_main(ctx, m);
}

// GOMP_parallel_start's team and gang, until GOMP_parallel_end (heap: the caller returns).
struct Pending {
  Team team;
  core::gang::Gang gang;
  ThreadState saved;
};

// Member threads of a _start region run the body; the caller runs it itself after _start.
void pending_member(void* ctx, unsigned m) { member_main(&static_cast<Pending*>(ctx)->team, m); }

}  // namespace

unsigned team_size_for(unsigned specified) { return resolve_team_size(specified); }

void set_bind_clause(unsigned flags) { me().bind_clause = flags & 7; }

void end_team(Team* t) {
  team_cleanup(t);  // what a cancellation left behind (cancel.cpp)
  task_queues_free(t);
  if (t->cg_added != 0) {
    unsigned long busy = t->cg->fetch_sub(t->cg_added, std::memory_order_relaxed);
    POOLSHIM_ASSERT(busy > t->cg_added);  // the group's outermost thread stays busy
  }
}

unsigned team_size_hint() {
  int (*f)() = real_max_threads();
  return f ? static_cast<unsigned>(f()) : icv().nthreads;
}

void run_region(void (*fn)(void*), void* data, unsigned n, WorkShare* preset) {
  Team t;
  init_team(&t, fn, data, n);
  preset->seq = 0;
  t.ws_head = preset;
  t.preset = preset;
  core::gang::run(t.n, member_main, &t, team_gangs(t, team_shrink_ctx));
  end_team(&t);
  // Members that left the preset construct freed it; one that ended the region inside it
  // (nowait and no end call is not valid OpenMP) would leave it here.
  if (t.ws_head == preset && preset->left < t.n) delete preset;
}

void run_parallel(void (*fn)(void*), void* data, unsigned n, TaskGroup* taskgroup) {
  Team t;
  init_team(&t, fn, data, n);
  t.taskgroup = taskgroup;
  core::gang::run(t.n, member_main, &t, team_gangs(t, team_shrink_ctx));
  end_team(&t);
}

void run_parallel_line(void (*fn)(void*), const void* data, size_t size, unsigned n) {
  POOLSHIM_ASSERT(size <= Team::kBodyLine);
  Team t;
  init_team(&t, fn, t.body_line, n);
  memcpy(t.body_line, data, size);
  core::gang::run(t.n, line_member_main, &t, team_gangs(t, team_shrink_ctx));
  end_team(&t);
}

// GOMP_parallel_start and the GOMP_parallel_loop_*_start / GOMP_parallel_sections_start of
// loop_start.cpp: the caller runs member 0 once this returns, until GOMP_parallel_end.
void start_region(void (*fn)(void*), void* data, unsigned n, WorkShare* preset) {
  Pending* p = new Pending;
  init_team(&p->team, fn, data, n);
  if (preset != nullptr) {
    preset->seq = 0;
    p->team.ws_head = preset;
    p->team.preset = preset;
  }
  p->gang = core::gang::start(p->team.n, pending_member, p,
                              team_gangs(p->team, [](void* ctx, unsigned m) {
                                team_shrink(&static_cast<Pending*>(ctx)->team, m);
                              }));
  p->saved = enter(&p->team, 0);
  me().place = member_place(p->team.places, p->team.n, 0);
  display_affinity_if_changed();
  if (preset != nullptr) {
    me().ws = preset;
    me().ws_seq = 1;
  }
  me().task = &p->saved;  // member 0's implicit task is a new task (nest lock owners)
  me().pending_region = p;
}

}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  set_bind_clause(flags);
  run_parallel(fn, data, resolve_team_size(num_threads), nullptr);
}

void psn_GOMP_parallel_start(void (*fn)(void*), void* data, unsigned num_threads) {
  start_region(fn, data, resolve_team_size(num_threads), nullptr);
}

void psn_GOMP_parallel_end() {
  Pending* p = static_cast<Pending*>(me().pending_region);
  region_member_end();
  poolshim::core::gang::join(p->gang);
  end_team(&p->team);
  me() = p->saved;
  WorkShare* preset = p->team.preset;
  if (preset != nullptr && p->team.ws_head == preset && preset->left < p->team.n) delete preset;
  delete p;
}

void psn_GOMP_barrier() { team_barrier(); }

}  // extern "C"
