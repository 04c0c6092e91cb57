// The native __kmpc entry points of teams and synchronisation (kmpc.h): a region, its size and
// its ids, barriers, single, master, critical sections, reductions and flush, each onto the
// runtime that serves libgomp's ABI (runtime/entry_points.h), so that a clang-built team is a
// team of the shim's threads with the ICVs the GOMP side sees.
//
// Thread ids: libomp's gtid is an index into its own thread table; here it is only a number
// that the compiler passes back to us, which ignore it. __kmpc_global_thread_num gives each
// thread a distinct one (the initial thread asks first: 0), as libomp's callers expect.
#include <alloca.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

#include <new>

#include <atomic>

#include "abi/openmp/kmpc/kmpc_thread.h"
#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "base/assert.h"

namespace poolshim::abi::openmp::kmpc {
namespace {

std::atomic<int32_t> g_next_gtid{0};

pthread_key_t g_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
bool g_key_made = false;
KmpcThread g_shared_fallback;

void make_key() {
  g_key_made = pthread_key_create(&g_key, [](void* p) { free(p); }) == 0;
}

}  // namespace

// The dispatch states saved by the serialized regions a thread is inside, innermost first, each
// with its nesting depth (a malloc failure saves nothing for its level: only a dynamic loop
// around that region would then lose its place).
struct SavedDispatch {
  DispatchState state;
  SavedDispatch* outer;
  int depth;
};

namespace {

// What every member reads to start the body, one line: the microtask and up to kInlineArgs shared
// variables (argv is nullptr then; more are alloca'd and argv points to them), so that a worker's
// start costs one miss on it, not one for the region and one for the argument array. A parallel
// region copies it into the team's body line (runtime::run_parallel_line), which a member fetches
// beside the team's own lines (docs/openmp.md, "A region's line" and "A `__kmpc` region's line
// in the team").
constexpr int32_t kInlineArgs = 5;
struct alignas(64) Region {
  kmpc_micro fn;
  int32_t argc;
  void** argv;
  void* inline_args[kInlineArgs];
};
static_assert(sizeof(Region) == 64 && sizeof(Region) <= runtime::Team::kBodyLine,
              "a region's start is one line");

int32_t gtid() {
  KmpcThread& t = kmpc_thread();
  if (t.gtid < 0) t.gtid = g_next_gtid.fetch_add(1, std::memory_order_relaxed);
  return t.gtid;
}

// Each member of the team, the caller included: its ids, then the body. Also each team of a
// teams construct, on its initial thread (bound thread number 0).
void run_member(void* data) {
  Region* r = static_cast<Region*>(data);
  int32_t g = gtid();
  int32_t b = psn_omp_get_thread_num();
  psk_invoke_microtask(r->fn, &g, &b, r->argc, r->argv != nullptr ? r->argv : r->inline_args);
}

// A region (teams: a teams construct) of the microtask fn with argc shared variables, read off
// ap into at least 4 slots (the invoker loads four registers whatever argc is): inline when they
// fit, else alloca'd here. The region runs member 0 on this thread and returns after the team's
// end, so this frame outlives every member.
void fork_region(bool teams, int32_t argc, kmpc_micro fn, va_list ap) {
  POOLSHIM_ASSERT(argc >= 0);
  Region r;
  r.fn = fn;
  r.argc = argc;
  const int32_t slots = argc > 4 ? argc : 4;
  r.argv = slots <= kInlineArgs
               ? nullptr
               : static_cast<void**>(alloca(sizeof(void*) * static_cast<size_t>(slots)));
  void** argv = r.argv != nullptr ? r.argv : r.inline_args;
  for (int32_t i = 0; i < slots; ++i) argv[i] = i < argc ? va_arg(ap, void*) : nullptr;
  KmpcThread& t = kmpc_thread();
  const DispatchState saved = t.dispatch;
  if (teams) {
    // Without num_teams, OMP_NUM_TEAMS or omp_set_num_teams: one team, libomp's default.
    uint32_t n = t.pushed_teams;
    const uint32_t limit = t.pushed_team_threads;
    t.pushed_teams = t.pushed_team_threads = 0;
    if (n == 0 && psn_omp_get_max_teams() <= 0) n = 1;
    psn_GOMP_teams_reg(run_member, &r, n, limit, 0);
  } else {
    const uint32_t n = t.pushed_threads;
    t.pushed_threads = 0;
    runtime::set_bind_clause(0);  // as GOMP_parallel's flags 0
    runtime::run_parallel_line(run_member, &r, sizeof r, runtime::team_size_for(n));
  }
  t.dispatch = saved;
}

void nothing(void*) {}

// libomp's ident_t (kmp.h): the compiler's flags are its second word.
struct Ident {
  int32_t reserved_1;
  int32_t flags;
};
constexpr int32_t kIdentAtomicReduce = 0x10;  // KMP_IDENT_ATOMIC_REDUCE

bool atomic_reduce(const ident_t* loc) {
  return loc != nullptr && (reinterpret_cast<const Ident*>(loc)->flags & kIdentAtomicReduce) != 0;
}

}  // namespace

KmpcThread& kmpc_thread() {
  pthread_once(&g_key_once, make_key);
  if (!g_key_made) return g_shared_fallback;
  if (void* p = pthread_getspecific(g_key)) return *static_cast<KmpcThread*>(p);
  void* p = malloc(sizeof(KmpcThread));
  if (p == nullptr || pthread_setspecific(g_key, p) != 0) {
    free(p);
    return g_shared_fallback;
  }
  return *new (p) KmpcThread();
}

}  // namespace poolshim::abi::openmp::kmpc

using namespace poolshim::abi::openmp::kmpc;

extern "C" {

int32_t psk_global_thread_num(ident_t*) { return gtid(); }
int32_t psk_bound_thread_num(ident_t*) { return psn_omp_get_thread_num(); }
int32_t psk_bound_num_threads(ident_t*) { return psn_omp_get_num_threads(); }
int32_t psk_in_parallel(ident_t*) { return psn_omp_in_parallel() ? 1 : 0; }
int32_t psk_ok_to_fork(ident_t*) { return 1; }

void psk_push_num_threads(ident_t*, int32_t, int32_t n) {
  kmpc_thread().pushed_threads = n > 0 ? static_cast<uint32_t>(n) : 0;
}

void psk_fork_call(ident_t*, int32_t argc, kmpc_micro fn, ...) {
  va_list ap;
  va_start(ap, fn);
  fork_region(false, argc, fn, ap);
  va_end(ap);
}

// A teams construct on the host: the runtime's GOMP_teams_reg runs the teams one after another
// on this thread, the initial thread of each (as libgomp does; libomp starts a thread per team,
// which OpenMP leaves to the implementation). Without num_teams, and without OMP_NUM_TEAMS or
// omp_set_num_teams, one team, as libomp (libgomp's GOMP side makes three); thread_limit as the
// clause gives it (0: the runtime's teams-thread-limit-var). fork_region() runs it.
void psk_push_num_teams(ident_t*, int32_t, int32_t num_teams, int32_t num_threads) {
  KmpcThread& t = kmpc_thread();
  t.pushed_teams = num_teams > 0 ? static_cast<uint32_t>(num_teams) : 0;
  t.pushed_team_threads = num_threads > 0 ? static_cast<uint32_t>(num_threads) : 0;
}

void psk_fork_teams(ident_t*, int32_t argc, kmpc_micro fn, ...) {
  va_list ap;
  va_start(ap, fn);
  fork_region(true, argc, fn, ap);
  va_end(ap);
}

// if(0) regions: the caller runs the body itself between these two, as a team of one.
void psk_serialized_parallel(ident_t*, int32_t) {
  KmpcThread& t = kmpc_thread();
  t.pushed_threads = 0;
  if (auto* s = static_cast<SavedDispatch*>(malloc(sizeof(SavedDispatch)))) {
    *s = SavedDispatch{t.dispatch, t.serialized, t.serialized_depth};
    t.serialized = s;
  }
  ++t.serialized_depth;
  psn_GOMP_parallel_start(nothing, nullptr, 1);
}

void psk_end_serialized_parallel(ident_t*, int32_t) {
  psn_GOMP_parallel_end();
  KmpcThread& t = kmpc_thread();
  POOLSHIM_ASSERT(t.serialized_depth > 0);
  --t.serialized_depth;
  if (SavedDispatch* s = t.serialized; s != nullptr && s->depth == t.serialized_depth) {
    t.dispatch = s->state;
    t.serialized = s->outer;
    free(s);
  }
}

void psk_barrier(ident_t*, int32_t) { psn_GOMP_barrier(); }
void psk_flush(ident_t*) { std::atomic_thread_fence(std::memory_order_seq_cst); }

int32_t psk_single(ident_t*, int32_t) { return psn_GOMP_single_start() ? 1 : 0; }
void psk_end_single(ident_t*, int32_t) {}
int32_t psk_master(ident_t*, int32_t) { return psn_omp_get_thread_num() == 0 ? 1 : 0; }
void psk_end_master(ident_t*, int32_t) {}
int32_t psk_masked(ident_t*, int32_t, int32_t filter) {
  return psn_omp_get_thread_num() == filter ? 1 : 0;
}
void psk_end_masked(ident_t*, int32_t) {}

// copyprivate: the member that ran the single (didit) broadcasts its variables' addresses. The
// runtime's single_copy work share gives every member one member's mailbox (on that member's
// stack, which stays in this function to the last barrier); the didit member posts its data
// there, and after a barrier the others copy from it; a second barrier keeps both alive until
// every copy is done.
void psk_copyprivate(ident_t*, int32_t, size_t, void* data, void (*copy)(void*, void*),
                     int32_t didit) {
  struct Mailbox {
    void* data;
  } mine{nullptr};
  auto* box = static_cast<Mailbox*>(psn_GOMP_single_copy_start());
  if (box == nullptr) {
    box = &mine;
    psn_GOMP_single_copy_end(box);
  }
  if (didit != 0) box->data = data;
  psn_GOMP_barrier();
  if (didit == 0 && box->data != nullptr) copy(data, box->data);
  psn_GOMP_barrier();
}

// kmp_critical_name is 32 zeroed bytes per name: room for GOMP_critical_name_start's pointer.
void psk_critical(ident_t*, int32_t, void* name) {
  psn_GOMP_critical_name_start(static_cast<void**>(name));
}
void psk_critical_with_hint(ident_t*, int32_t, void* name, uint32_t) {
  psn_GOMP_critical_name_start(static_cast<void**>(name));
}
void psk_end_critical(ident_t*, int32_t, void* name) {
  psn_GOMP_critical_name_end(static_cast<void**>(name));
}

// Reductions. Where the compiler also emitted the atomic form (KMP_IDENT_ATOMIC_REDUCE in the
// location's flags), answer 2: each member combines its copy with atomic updates, no lock (the
// nowait form then calls no end). Otherwise libomp's "critical" method, answer 1: each member
// combines under the reduction's lock, then ends. The blocking form's end adds a barrier, as
// libomp's does, and is called for both answers.
int32_t psk_reduce_nowait(ident_t* loc, int32_t, int32_t, size_t, void*, void (*)(void*, void*),
                          void* lock) {
  if (atomic_reduce(loc)) return 2;
  psn_GOMP_critical_name_start(static_cast<void**>(lock));
  return 1;
}
void psk_end_reduce_nowait(ident_t*, int32_t, void* lock) {
  psn_GOMP_critical_name_end(static_cast<void**>(lock));
}
int32_t psk_reduce(ident_t* loc, int32_t, int32_t, size_t, void*, void (*)(void*, void*),
                   void* lock) {
  const bool atomic = atomic_reduce(loc);
  kmpc_thread().reduce_locked = !atomic;
  if (atomic) return 2;
  psn_GOMP_critical_name_start(static_cast<void**>(lock));
  return 1;
}
void psk_end_reduce(ident_t*, int32_t, void* lock) {
  KmpcThread& t = kmpc_thread();
  if (t.reduce_locked) psn_GOMP_critical_name_end(static_cast<void**>(lock));
  t.reduce_locked = false;
  psn_GOMP_barrier();
}

}  // extern "C"
