// Native synchronisation and tasks: critical (unnamed and named), atomic, single and single
// copyprivate, tasks run undeferred, taskwait/taskgroup, taskgroups (cancellation:
// native_cancel.cpp).
//
// Tasks: the specification lets every task be undeferred (executed at once by the thread that
// meets it); libgomp does the same for a thread outside a team. Dependences are then met by
// program order: every sibling that came before has finished. A detached task's event is a
// dummy that omp_fulfill_event accepts.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/openmp/native_state.h"

namespace poolshim::abi::openmp::native {
namespace {

Lock g_critical;  // the unnamed critical section (one per process, as libgomp's)
Lock g_atomic;    // GOMP_atomic_start/end: atomics the compiler could not make lock-free

constexpr unsigned kTaskFlagDetach = 1u << 13;  // GOMP_TASK_FLAG_DETACH (gomp-constants.h)
char g_dummy_event;

void init_nothing(WorkShare*, void*) {}

}  // namespace
}  // namespace poolshim::abi::openmp::native

using namespace poolshim::abi::openmp::native;

extern "C" {

void psn_GOMP_critical_start() { g_critical.lock(); }
void psn_GOMP_critical_end() { g_critical.unlock(); }

// A named critical section's lock lives in the pointer-sized, zero-initialised variable the
// compiler emits for the name (as libgomp does when its mutex fits in a pointer).
static_assert(sizeof(Lock) <= sizeof(void*), "a named critical's lock fits its pointer");
void psn_GOMP_critical_name_start(void** pptr) { reinterpret_cast<Lock*>(pptr)->lock(); }
void psn_GOMP_critical_name_end(void** pptr) { reinterpret_cast<Lock*>(pptr)->unlock(); }

void psn_GOMP_atomic_start() { g_atomic.lock(); }
void psn_GOMP_atomic_end() { g_atomic.unlock(); }

// The member whose count claims the team's next single construct runs it.
bool psn_GOMP_single_start() {
  ThreadState& s = me();
  Team* t = s.team;
  if (t == nullptr || t->n <= 1) return true;
  unsigned long mine = s.single_seq++;
  return t->single_claimed.compare_exchange_strong(mine, mine + 1, std::memory_order_acq_rel);
}

// single copyprivate: the first member to enter runs the construct (nullptr); the others wait
// at a barrier for GOMP_single_copy_end to publish its data, and get it.
void* psn_GOMP_single_copy_start() {
  bool first;
  WorkShare* w = ws_enter(init_nothing, nullptr, &first);
  if (first) return nullptr;
  team_barrier();
  void* data = w->copyprivate;
  ws_leave();
  return data;
}
void psn_GOMP_single_copy_end(void* data) {
  WorkShare* w = me().ws;
  if (w != nullptr) w->copyprivate = data;
  team_barrier();
  ws_leave();
}

void psn_GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                   long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                   void* detach) {
  if (task_cancelled()) return;  // its team or taskgroup was cancelled: discarded, as libgomp
  if ((flags & kTaskFlagDetach) != 0 && detach != nullptr)
    *static_cast<void**>(detach) = &g_dummy_event;
  char tag;  // the task's identity while it runs (nest locks), with its own ICVs
  TaskScope scope(&tag);
  if (cpyfn == nullptr) {
    fn(data);
    return;
  }
  size_t size = static_cast<size_t>(arg_size) + static_cast<size_t>(arg_align) - 1;
  char stack_buf[256];
  char* buf = size <= sizeof stack_buf ? stack_buf : static_cast<char*>(malloc(size));
  if (buf == nullptr) abort();  // as libgomp's gomp_malloc
  char* arg = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(buf) + arg_align - 1) &
                                      ~static_cast<uintptr_t>(arg_align - 1));
  cpyfn(arg, data);
  fn(arg);
  if (buf != stack_buf) free(buf);
}
void psn_GOMP_taskwait() {}
void psn_GOMP_taskwait_depend(void**) {}
void psn_GOMP_taskyield() {}
// A taskgroup is pushed on the current task's chain (cancellation looks at it: native_cancel.cpp).
void psn_GOMP_taskgroup_start() {
  ThreadState& s = me();
  TaskGroup* g = new TaskGroup;
  g->prev = s.taskgroup;
  s.taskgroup = g;
}
void psn_GOMP_taskgroup_end() {
  ThreadState& s = me();
  if (TaskGroup* g = s.taskgroup) {
    s.taskgroup = g->prev;
    delete g;
  }
}
void psn_omp_fulfill_event(void*) {}

}  // extern "C"
