// Native tasks: GOMP_task, taskwait, taskyield, taskgroups, omp_in_final, omp_fulfill_event.
//
// Every task is undeferred: executed at once by the thread that meets it, which the
// specification allows for any task and libgomp does for a thread outside a team, for if(0)
// and for tasks inside a final task. Dependences are then met by program order (every sibling
// that came before has finished), taskwait and the end of a taskgroup have nothing left to wait
// for, and a task's private copy of a task reduction is its encountering thread's. What a task
// carries, as libgomp's undeferred tasks do: its taskgroup is its encountering task's innermost
// one; it is final when that task is or when it has final(true) (omp_in_final); it does not
// start when its taskgroup was cancelled. A detached task's event is a dummy that
// omp_fulfill_event accepts.
#include <stdint.h>
#include <stdlib.h>

#include "abi/openmp/native_state.h"

namespace poolshim::abi::openmp::native {
namespace {

constexpr unsigned kTaskFlagFinal = 1u << 1;    // GOMP_TASK_FLAG_FINAL (gomp-constants.h)
constexpr unsigned kTaskFlagDetach = 1u << 13;  // GOMP_TASK_FLAG_DETACH
char g_dummy_event;

}  // namespace

void taskgroup_start() {
  ThreadState& s = me();
  TaskGroup* g = new TaskGroup;
  g->prev = s.taskgroup;
  g->reductions = s.taskgroup ? s.taskgroup->reductions : nullptr;
  s.taskgroup = g;
}

bool taskgroup_cancelled() {
  const TaskGroup* g = me().taskgroup;
  if (g == nullptr) return false;
  if (g->cancelled.load(std::memory_order_relaxed)) return true;
  return g->workshare && g->prev != nullptr && g->prev->cancelled.load(std::memory_order_relaxed);
}

void taskgroup_end() {
  ThreadState& s = me();
  TaskGroup* g = s.taskgroup;
  if (g == nullptr) return;
  s.taskgroup = g->prev;
  delete g;
}

}  // namespace poolshim::abi::openmp::native

using namespace poolshim::abi::openmp::native;

extern "C" {

void psn_GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                   long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                   void* detach) {
  // As libgomp: a task met in a cancelled team or taskgroup is discarded (native_cancel.cpp).
  if (task_cancelled() || taskgroup_cancelled()) return;
  if ((flags & kTaskFlagDetach) != 0 && detach != nullptr) {
    *static_cast<void**>(detach) = &g_dummy_event;
    if (data != nullptr) *static_cast<void**>(data) = &g_dummy_event;  // as libgomp
  }
  ThreadState& s = me();
  TaskGroup* taskgroup = s.taskgroup;
  bool was_final = s.in_final;
  char self;  // the task's identity while it runs (nest locks), with its own ICVs (icv-1.c)
  TaskScope scope(&self);
  s.in_final = was_final || (flags & kTaskFlagFinal) != 0;
  if (cpyfn == nullptr) {
    fn(data);
  } else {
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
  s.in_final = was_final;  // the same thread: an undeferred task never migrates
  s.taskgroup = taskgroup;
}

void psn_GOMP_taskwait() {}
void psn_GOMP_taskwait_depend(void**) {}
void psn_GOMP_taskyield() {}
void psn_GOMP_taskgroup_start() { taskgroup_start(); }
void psn_GOMP_taskgroup_end() { taskgroup_end(); }
void psn_omp_fulfill_event(void*) {}
int psn_omp_in_final() { return me().in_final ? 1 : 0; }

}  // extern "C"
