// Native tasks: GOMP_task, taskwait, taskyield, taskgroups, omp_in_final, omp_fulfill_event.
//
// A task that may be deferred (task_wait.h's task_deferrable: in a team of more than one, or of one
// when detached, or with depend clauses while a detached task is incomplete; not inside a final
// task; if clause true) is queued in the team, with depend clauses once the earlier siblings it
// depends on are complete (task_depend.cpp). Any other task is undeferred, as libgomp's: executed
// at once by the thread that meets it (a thread outside a team, if(0), inside a final task, or more
// than 64 tasks per member pending), once the earlier siblings it depends on are complete when it
// has depend clauses; the deferred tasks it creates are its own children (its taskwait waits for
// them alone). What a task carries, as libgomp's do: its taskgroup is its encountering task's
// innermost one; it is final when that task is or when it has final(true) (omp_in_final); it does
// not start when its team or taskgroup was cancelled (cancel.cpp); while it runs it has its own
// ICVs and identity (current_task(): nest locks; TaskScope for an undeferred task, its node for a
// deferred one). A detached task's event (task_node.h's TaskEvent): a deferred one's is in its node
// and its completion waits for it; an undeferred one's is on its creator's stack, and its creator
// waits for it after the body, as libgomp's does.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/task_node.h"
#include "abi/openmp/runtime/task_wait.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "base/clock.h"
#include "core/futex.h"
#include "core/wait.h"

namespace poolshim::abi::openmp::runtime {
namespace {

constexpr unsigned kTaskFlagFinal = 1u << 1;    // GOMP_TASK_FLAG_FINAL (gomp-constants.h)
constexpr unsigned kTaskFlagDepend = 1u << 3;   // GOMP_TASK_FLAG_DEPEND
constexpr unsigned kTaskFlagDetach = 1u << 13;  // GOMP_TASK_FLAG_DETACH

// The task's omp_event_handle_t, where the compiler reads it (and in data's first word, as
// libgomp).
void publish_event(void* detach, void* data, TaskEvent* event) {
  *static_cast<void**>(detach) = event;
  if (data != nullptr) *static_cast<void**>(data) = event;
}

void wait_fulfilled(TaskEvent& event) {
  auto fulfilled = [&event] { return event.fulfilled.load(std::memory_order_acquire) != 0; };
  if (poolshim::core::wait::spin_for(wait_spin_ns(), fulfilled)) return;
  while (!fulfilled()) poolshim::core::futex_wait(&event.fulfilled, 0);
}

// A task's body on a copy of its data made by its copy function (cpyfn: firstprivate objects of
// a class type), in a frame of its own: most undeferred tasks have none, and their path stays
// small enough to be inlined where they are met.
__attribute__((noinline)) void run_on_copy(void (*fn)(void*), void* data,
                                           void (*cpyfn)(void*, void*), long arg_size,
                                           long arg_align) {
  size_t size = static_cast<size_t>(arg_size) + static_cast<size_t>(arg_align) - 1;
  char stack_buf[256];
  char* buf = size <= sizeof stack_buf ? stack_buf : static_cast<char*>(xmalloc(size));
  char* arg = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(buf) + arg_align - 1) &
                                      ~static_cast<uintptr_t>(arg_align - 1));
  cpyfn(arg, data);
  fn(arg);
  if (buf != stack_buf) free(buf);
}

// An undeferred task's body, run by its creator at once: its own data environment and identity,
// its deferred tasks its own children (task_undeferred_begin).
// s: the calling thread's (me()), read once by the caller: the task runs on this thread.
inline void run_undeferred(ThreadState& s, void (*fn)(void*), void* data,
                           void (*cpyfn)(void*, void*), long arg_size, long arg_align,
                           unsigned flags) {
  TaskGroup* taskgroup = s.taskgroup;
  bool was_final = s.in_final;
  char self;  // the task's identity while it runs (nest locks), with its own ICVs (icv-1.c)
  TaskScope scope(s, &self);
  TaskNode* outer = task_undeferred_begin(s);
  s.in_final = was_final || (flags & kTaskFlagFinal) != 0;
  if (cpyfn == nullptr)
    fn(data);
  else
    run_on_copy(fn, data, cpyfn, arg_size, arg_align);
  task_undeferred_end(s, outer);
  s.in_final = was_final;  // the same thread: an undeferred task never migrates
  s.taskgroup = taskgroup;
}

}  // namespace

void taskgroup_start() {
  ThreadState& s = me();
  TaskGroup* g = new TaskGroup;
  g->prev = s.taskgroup;
  g->reductions = s.taskgroup ? s.taskgroup->reductions : nullptr;
  s.taskgroup = g;
}

bool taskgroup_cancelled() { return taskgroup_cancelled(me().taskgroup); }

bool taskgroup_cancelled(const TaskGroup* g) {
  if (g == nullptr) return false;
  if (g->cancelled.load(std::memory_order_acquire)) return true;
  return g->workshare && g->prev != nullptr && g->prev->cancelled.load(std::memory_order_acquire);
}

void taskgroup_end() {
  ThreadState& s = me();
  TaskGroup* g = s.taskgroup;
  if (g == nullptr) return;
  task_wait_group(g);
  s.taskgroup = g->prev;
  delete g;
}

void task_submit_detached(TaskNode* n, bool if_clause, unsigned flags, void** depend) {
  POOLSHIM_ASSERT(n->event.node == n && n->holds.load(std::memory_order_relaxed) == 2);
  if (task_discarded()) {
    // Discarded as GOMP_task discards: never queued, so its completion is nobody's; the node
    // stays allocated (a later omp_fulfill_event of its handle writes into it) and is lost.
    n->event.node = nullptr;
    if ((flags & kTaskFlagRunsDiscarded) != 0) n->fn(n->arg);
    return;
  }
  if ((flags & kTaskFlagDepend) == 0) depend = nullptr;
  if (if_clause && task_deferrable(0, true)) {
    task_submit(n, (flags & kTaskFlagFinal) != 0, (flags & kTaskFlagRunsDiscarded) != 0, depend);
    return;
  }
  if (depend != nullptr) task_wait_depend(depend);
  task_detached_undeferred_begin(n);
  run_undeferred(me(), n->fn, n->arg, nullptr, 0, 1, flags);
  task_detached_undeferred_end(n);
}

void task_detached_undeferred_begin(TaskNode* n) {
  POOLSHIM_ASSERT(n->event.node == n && n->team == nullptr);  // never submitted
  n->event.node = nullptr;  // omp_fulfill_event now sets `fulfilled` and wakes its waiter
}

void task_detached_undeferred_end(TaskNode* n) {
  POOLSHIM_ASSERT(n->event.node == nullptr);
  wait_fulfilled(n->event);  // as GOMP_task's undeferred detached task
  n->~TaskNode();
  free(n);  // omp_fulfill_event's wake names only the address (see psn_omp_fulfill_event)
}

}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_GOMP_task(void (*fn)(void*), void* data, void (*cpyfn)(void*, void*), long arg_size,
                   long arg_align, bool if_clause, unsigned flags, void** depend, int priority,
                   void* detach) {
  // As libgomp: a task met in a cancelled team or taskgroup is discarded (cancel.cpp); nothing
  // is cancelled unless cancel-var is true.
  if (task_discarded()) {
    if ((flags & kTaskFlagRunsDiscarded) != 0) fn(data);  // it decides (kTaskFlagRunsDiscarded)
    return;
  }
  bool detached = (flags & kTaskFlagDetach) != 0 && detach != nullptr;
  if ((flags & kTaskFlagDepend) == 0) depend = nullptr;
  // In a team of one, a task with depend clauses is queued too while a detached task is
  // incomplete: that may be a predecessor whose event a later task fulfils, which an undeferred
  // wait would never see.
  if (if_clause &&
      task_deferrable(0, detached || (depend != nullptr && team_detached_incomplete()))) {
    char* arg;
    TaskNode* node = task_alloc(fn, arg_size, arg_align, detached, &arg);
    if (detached) publish_event(detach, data, &node->event);
    bool final = (flags & kTaskFlagFinal) != 0;
    if (cpyfn != nullptr) {
      ThreadState& s = me();
      const void* parent = s.task;
      s.in_final = final;  // the copy runs as the new task (libgomp: thr->task)
      s.task = node;
      cpyfn(arg, data);
      s.in_final = false;  // task_deferrable: the encountering task is not final
      s.task = parent;
    } else if (arg_size > 0) {
      memcpy(arg, data, static_cast<size_t>(arg_size));
    }
    task_submit(node, final, cpyfn != nullptr || (flags & kTaskFlagRunsDiscarded) != 0, depend);
    return;
  }
  // Undeferred: its dependences are on deferred siblings only (the encountering task is
  // suspended until it ends, so it creates no later sibling meanwhile).
  if (depend != nullptr) task_wait_depend(depend);
  TaskEvent event;  // a detached one's: it is complete once its body returned and this fulfilled
  if (detached) publish_event(detach, data, &event);
  // Every 64th task that runs here because the creator's queue is full is timed (takes_back_off;
  // a time-stamp read costs 10-15 ns on the VMs measured, a tiny task's path 20-35).
  ThreadState& s = me();
  const bool timed = if_clause && s.queue_full && ++s.overflow_runs % 64 == 0;
  const uint64_t start = timed ? poolshim::base::ticks() : 0;
  run_undeferred(s, fn, data, cpyfn, arg_size, arg_align, flags);
  // A thread that moved to another CPU meanwhile may read an earlier count: a wrap, capped.
  if (timed) task_overflow_sample(poolshim::base::ticks() - start);
  if (detached) wait_fulfilled(event);  // as libgomp: its creator waits for the event
}

void psn_GOMP_taskwait() { task_wait_children(); }
void psn_GOMP_taskwait_depend(void** depend) { task_wait_depend(depend); }
void psn_GOMP_taskyield() {}
void psn_GOMP_taskgroup_start() { taskgroup_start(); }
void psn_GOMP_taskgroup_end() { taskgroup_end(); }
void psn_omp_fulfill_event(void* handle) {
  if (handle == nullptr) return;
  TaskEvent* event = static_cast<TaskEvent*>(handle);
  if (event->node != nullptr) {
    task_fulfill(event->node);
    return;
  }
  // An undeferred task's: its creator may return once it sees the store, so the wake names
  // only the address (the kernel's, harmless on a stack the creator left).
  event->fulfilled.store(1, std::memory_order_seq_cst);
  poolshim::core::futex_wake(&event->fulfilled, 1);
}
int psn_omp_in_final() { return me().in_final ? 1 : 0; }

}  // extern "C"
