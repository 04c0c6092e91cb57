// The native __kmpc entry points of explicit tasks (kmpc.h): a task the compiler allocates and
// fills (__kmpc_omp_task_alloc), then hands over (__kmpc_omp_task, _with_deps), becomes one
// GOMP_task of the runtime whose data is the task's address; taskwait, taskyield, taskgroup and
// the if(0) pair map onto their GOMP counterparts.
//
// Layout (libomp's kmp.h, which clang's code writes into): kmp_task_t is {shareds, routine,
// part_id, data1, data2}, the compiler's private copies right after it (within
// sizeof_kmp_task_t), and the shared variables' block after that, which shareds points to. The
// runtime keeps a header of its own in front of it: the flags and the whole size.
#include <alloca.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <new>

#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/task_node.h"
#include "abi/openmp/runtime/xmalloc.h"

// parallel.cpp: this thread's id, as __kmpc_global_thread_num gives it.
extern "C" __attribute__((visibility("hidden"))) int32_t psk_global_thread_num(ident_t* loc);

namespace poolshim::abi::openmp::kmpc {
namespace {

using Routine = int32_t (*)(int32_t gtid, void* task);

struct Task {  // kmp_task_t
  void* shareds;
  Routine routine;
  int32_t part_id;
  union {
    int32_t priority;
    Routine destructors;
  } data1, data2;
};

// An untied task's routine hands its own task back (__kmpc_omp_task from inside it) at a
// scheduling point, its start included, and returns; called again, its part_id says where to go
// on. Submitted as a new GOMP task, the rest would be a child of the first part, and a taskwait
// of the encountering task would not wait for it; so the hand-back only marks the task (again)
// and the run that is under way calls the routine once more, on the same thread: an untied task
// may always run as a tied one.
struct alignas(16) Header {
  int32_t flags;  // the compiler's kmp_tasking_flags_t word
  bool running;   // its routine is being run (run_task, or the compiler's own if(0) call)
  bool again;     // the routine handed the task back while running
  size_t size;    // header + task + privates + shareds
  runtime::TaskScope* if0_scope;  // an if(0) task's data environment (begin_if0)
  // A detached task's node, made when its event was handed out (allow_completion_event): the
  // event is the node's, which lives until the task is complete, after this memory is freed.
  runtime::TaskNode* detached = nullptr;
};

// kmp_tasking_flags_t's compiler bits.
constexpr int32_t kTied = 1 << 0;
constexpr int32_t kFinal = 1 << 1;
constexpr int32_t kDestructors = 1 << 3;
constexpr int32_t kPriority = 1 << 5;
constexpr int32_t kDetachable = 1 << 6;

// GOMP_TASK_FLAG_* (gomp-constants.h).
constexpr unsigned kGompUntied = 1u << 0;
constexpr unsigned kGompFinal = 1u << 1;
constexpr unsigned kGompDepend = 1u << 3;
constexpr unsigned kGompPriority = 1u << 4;

// kmp_depend_info_t: an address, a length and the kind's bits.
struct DependInfo {
  intptr_t base_addr;
  size_t len;
  uint8_t flags;  // in 1, out 2 (inout 3), mtx 4, set 8, all 0x80
};
constexpr uint8_t kDependIn = 1;

Header* header_of(Task* t) { return reinterpret_cast<Header*>(t) - 1; }

// The routine until it stops handing the task back (Header).
void run_routine(Task* t, int32_t g) {
  Header* h = header_of(t);
  h->running = true;
  do {
    h->again = false;
    t->routine(g, t);
  } while (h->again);
  h->running = false;
}

void finish(Task* t, int32_t g) {
  if ((header_of(t)->flags & kDestructors) != 0 && t->data1.destructors != nullptr)
    t->data1.destructors(g, t);
  free(header_of(t));
}

// The runtime's task body: the compiler's routine on the task, its destructors, the memory. A
// task that a cancellation discards skips its routine but not the rest: its firstprivate copies
// were constructed when it was created, and libomp destroys them (cancel-taskgroup-3.C counts).
// So the runtime runs this body even for a discarded task (kTaskFlagRunsDiscarded), which
// decides.
void run_task(void* data) {
  Task* t = *static_cast<Task**>(data);
  const int32_t g = psk_global_thread_num(nullptr);
  if (!runtime::task_discarded()) run_routine(t, g);
  finish(t, g);
}

// GOMP's depend array (the layout of GCC before 11: [n, nout, out..., in...]); every kind but
// in orders like out (mutexinoutset, inoutset: a valid, stricter order). n entries of the
// caller's storage after the two counts. nullptr for no dependence at all: a first word of 0
// would announce the newer layout.
void** gomp_depend(void** out, const DependInfo* a, int32_t na, const DependInfo* b, int32_t nb) {
  if (na + nb <= 0) return nullptr;
  size_t n = 0, nout = 0;
  for (int pass = 0; pass < 2; ++pass)  // outs first, then ins
    for (int32_t list = 0; list < 2; ++list) {
      const DependInfo* d = list == 0 ? a : b;
      const int32_t count = list == 0 ? na : nb;
      for (int32_t i = 0; i < count; ++i) {
        const bool in_only = d[i].flags == kDependIn;
        if (in_only != (pass == 1)) continue;
        out[2 + n++] = reinterpret_cast<void*>(d[i].base_addr);
        if (!in_only) ++nout;
      }
    }
  out[0] = reinterpret_cast<void*>(n);
  out[1] = reinterpret_cast<void*>(nout);
  return out;
}

void submit(Task* t, void** depend, bool deferred = true) {
  if (header_of(t)->running) {  // an untied task handing itself back: its run goes on
    header_of(t)->again = true;
    return;
  }
  const int32_t flags = header_of(t)->flags;
  unsigned gomp = runtime::kTaskFlagRunsDiscarded;
  if ((flags & kTied) == 0) gomp |= kGompUntied;
  if ((flags & kFinal) != 0) gomp |= kGompFinal;
  if (depend != nullptr) gomp |= kGompDepend;
  int priority = 0;
  if ((flags & kPriority) != 0) {
    gomp |= kGompPriority;
    priority = t->data2.priority;
  }
  if (runtime::TaskNode* node = header_of(t)->detached) {
    runtime::task_submit_detached(node, deferred, gomp, depend);
    return;
  }
  psn_GOMP_task(run_task, &t, nullptr, sizeof t, alignof(Task*), deferred, gomp, depend, priority,
                nullptr);
}

}  // namespace
}  // namespace poolshim::abi::openmp::kmpc

using namespace poolshim::abi::openmp::kmpc;

extern "C" {

void* psk_omp_task_alloc(ident_t*, int32_t, int32_t flags, size_t sizeof_task,
                         size_t sizeof_shareds, Routine entry) {
  const size_t task_bytes = (sizeof_task + alignof(void*) - 1) & ~(alignof(void*) - 1);
  const size_t size = sizeof(Header) + task_bytes + sizeof_shareds;
  void* p = poolshim::abi::openmp::runtime::xmalloc(size);
  memset(p, 0, size);
  auto* h = new (p) Header{flags, false, false, size, nullptr};
  Task* t = reinterpret_cast<Task*>(h + 1);
  t->shareds = sizeof_shareds != 0 ? reinterpret_cast<char*>(t) + task_bytes : nullptr;
  t->routine = entry;
  return t;
}

// A target task (target nowait): the host runs its region, so it is a task of its own kind
// only in being untied, as the specification makes it (libomp's rule; no device is offered).
void* psk_omp_target_task_alloc(ident_t* loc, int32_t gtid, int32_t flags, size_t sizeof_task,
                                size_t sizeof_shareds, Routine entry, int64_t) {
  return psk_omp_task_alloc(loc, gtid, flags & ~kTied, sizeof_task, sizeof_shareds, entry);
}

int32_t psk_omp_task(ident_t*, int32_t, void* task) {
  submit(static_cast<Task*>(task), nullptr);
  return 0;  // TASK_CURRENT_NOT_QUEUED: the compiler does not look
}

int32_t psk_omp_task_with_deps(ident_t*, int32_t, void* task, int32_t ndeps, void* deps,
                               int32_t ndeps_noalias, void* noalias) {
  const auto* a = static_cast<const DependInfo*>(deps);
  const auto* b = static_cast<const DependInfo*>(noalias);
  void** depend = static_cast<void**>(alloca(sizeof(void*) * (2 + ndeps + ndeps_noalias)));
  submit(static_cast<Task*>(task), gomp_depend(depend, a, ndeps, b, ndeps_noalias));
  return 0;
}

// detach(event): the handle (omp_event_handle_t, the task's event) is asked for before the task
// is submitted, so the runtime's node is made now, holding the task's address as GOMP_task's data
// would; submit() hands the node over. The flag is the compiler's (kmp_tasking_flags_t).
void* psk_task_allow_completion_event(ident_t*, int32_t, void* task) {
  Task* t = static_cast<Task*>(task);
  Header* h = header_of(t);
  POOLSHIM_ASSERT((h->flags & kDetachable) != 0 && h->detached == nullptr);
  char* arg;
  h->detached =
      poolshim::abi::openmp::runtime::task_alloc(run_task, sizeof t, alignof(Task*), true, &arg);
  memcpy(arg, &t, sizeof t);
  return &h->detached->event;
}

// if(0) with depend: wait for the dependences, then the compiler runs the task itself.
void psk_omp_wait_deps(ident_t*, int32_t, int32_t ndeps, void* deps, int32_t ndeps_noalias,
                       void* noalias) {
  const auto* a = static_cast<const DependInfo*>(deps);
  const auto* b = static_cast<const DependInfo*>(noalias);
  void** depend = static_cast<void**>(alloca(sizeof(void*) * (2 + ndeps + ndeps_noalias)));
  if (void** d = gomp_depend(depend, a, ndeps, b, ndeps_noalias)) psn_GOMP_taskwait_depend(d);
}

// if(0): the compiler runs the routine itself between these two. The task gets a data
// environment of its own (its ICVs, as runtime::TaskScope gives an undeferred task; its
// children are the encountering task's, so a taskwait inside it waits for those too); an untied
// one that handed itself back runs on here; then its destructors and memory.
void psk_omp_task_begin_if0(ident_t*, int32_t, void* task) {
  Task* t = static_cast<Task*>(task);
  Header* h = header_of(t);
  h->running = true;
  h->again = false;
  void* scope =
      poolshim::abi::openmp::runtime::xmalloc(sizeof(poolshim::abi::openmp::runtime::TaskScope));
  h->if0_scope = new (scope) poolshim::abi::openmp::runtime::TaskScope(t);
  if (h->detached != nullptr)
    poolshim::abi::openmp::runtime::task_detached_undeferred_begin(h->detached);
}
void psk_omp_task_complete_if0(ident_t*, int32_t gtid, void* task) {
  Task* t = static_cast<Task*>(task);
  Header* h = header_of(t);
  if (h->again) run_routine(t, gtid);  // it handed itself back: the rest of it, here
  h->running = false;
  h->if0_scope->~TaskScope();
  free(h->if0_scope);
  poolshim::abi::openmp::runtime::TaskNode* detached = h->detached;
  finish(t, gtid);
  // As an undeferred detached task of GOMP_task: its creator waits for the event.
  if (detached != nullptr) poolshim::abi::openmp::runtime::task_detached_undeferred_end(detached);
}

// taskloop: the pattern task (its lb and ub, pointers into its privates, hold the whole range,
// inclusive) is copied once per chunk, each copy given its part of the range and its
// firstprivates by task_dup (lastpriv: the chunk with the last iteration), and submitted; then
// the pattern's destructors run and it is freed, as libomp does. sched 1: grainsize, 2:
// num_tasks, 0: the default of libomp (ten per member). Chunks differ by at most one iteration.
void psk_taskloop(ident_t*, int32_t gtid, void* task, int32_t if_val, uint64_t* lb, uint64_t* ub,
                  int64_t st, int32_t nogroup, int32_t sched, uint64_t grainsize,
                  void (*task_dup)(void* dst, void* src, int32_t lastpriv)) {
  Task* pattern = static_cast<Task*>(task);
  Header* h = header_of(pattern);
  const bool up = st > 0;
  const uint64_t step = up ? static_cast<uint64_t>(st) : uint64_t{0} - static_cast<uint64_t>(st);
  const bool empty = up ? static_cast<int64_t>(*ub - *lb) < 0 : static_cast<int64_t>(*lb - *ub) < 0;
  const uint64_t trip = empty ? 0 : (up ? *ub - *lb : *lb - *ub) / step + 1;
  uint64_t ntasks = 0;
  if (sched == 1)
    ntasks = grainsize == 0 ? trip : trip / grainsize;
  else if (sched == 2)
    ntasks = grainsize < trip ? grainsize : trip;
  else
    ntasks = static_cast<uint64_t>(psn_omp_get_num_threads()) * 10;
  if (ntasks > trip) ntasks = trip;
  if (ntasks == 0 && trip != 0) ntasks = 1;
  const size_t lb_at = reinterpret_cast<char*>(lb) - reinterpret_cast<char*>(h);
  const size_t ub_at = reinterpret_cast<char*>(ub) - reinterpret_cast<char*>(h);
  const size_t shareds_at = pattern->shareds != nullptr
                                ? static_cast<char*>(pattern->shareds) - reinterpret_cast<char*>(h)
                                : 0;
  if (nogroup == 0) psn_GOMP_taskgroup_start();
  uint64_t first = *lb;
  for (uint64_t k = 0; k < ntasks; ++k) {
    const uint64_t count = trip / ntasks + (k < trip % ntasks ? 1 : 0);
    auto* copy = static_cast<char*>(poolshim::abi::openmp::runtime::xmalloc(h->size));
    memcpy(copy, h, h->size);
    auto* ch = new (copy) Header{h->flags, false, false, h->size, nullptr, nullptr};
    Task* t = reinterpret_cast<Task*>(ch + 1);
    if (pattern->shareds != nullptr) t->shareds = copy + shareds_at;
    const uint64_t last = up ? first + (count - 1) * step : first - (count - 1) * step;
    memcpy(copy + lb_at, &first, sizeof first);
    memcpy(copy + ub_at, &last, sizeof last);
    if (task_dup != nullptr) task_dup(t, pattern, k + 1 == ntasks ? 1 : 0);
    submit(t, nullptr, if_val != 0);
    first = up ? last + step : last - step;
  }
  if (nogroup == 0) psn_GOMP_taskgroup_end();
  if ((h->flags & kDestructors) != 0 && pattern->data1.destructors != nullptr)
    pattern->data1.destructors(gtid, pattern);
  free(h);
}

int32_t psk_omp_taskwait(ident_t*, int32_t) {
  psn_GOMP_taskwait();
  return 0;
}
int32_t psk_omp_taskyield(ident_t*, int32_t, int32_t) {
  psn_GOMP_taskyield();
  return 0;
}
void psk_taskgroup(ident_t*, int32_t) { psn_GOMP_taskgroup_start(); }
void psk_end_taskgroup(ident_t*, int32_t) {
  // Its task reductions are combined once its tasks are complete (task_reduction.cpp).
  const poolshim::abi::openmp::runtime::TaskGroup* g =
      poolshim::abi::openmp::runtime::me().taskgroup;
  void* reductions = g != nullptr ? g->kmpc_reductions : nullptr;
  psn_GOMP_taskgroup_end();
  taskgroup_reductions_end(reductions);
}
// The end of a reduction with the task modifier: its taskgroup's (task_reduction.cpp).
void psk_task_reduction_modifier_fini(ident_t* loc, int32_t gtid, int32_t) {
  psk_end_taskgroup(loc, gtid);
}

}  // extern "C"
