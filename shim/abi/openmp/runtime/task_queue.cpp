// Deferred tasks of the native runtime: a team's task queue, the task scheduling points that run
// it (the team barrier, taskwait, the end of a taskgroup, a region's end) and task completion.
//
// As libgomp (its task.c and team.c, read for the semantics, never copied): a task created in a
// team of more than one (or of one, when detached), with a true if clause, not inside a final
// task, while the team has at most 64 tasks per member pending, is deferred: its data is copied
// into its node (with the copy function, else bytewise), it is bound to its encountering task (its
// parent, whose taskwait waits for it) and to that task's innermost taskgroup, and queued in the
// team (one FIFO under one lock; priorities are ignored, which the specification allows). Members
// run queued tasks while they wait: in a barrier (any task; the barrier completes once every member
// arrived and the team has no task left), in taskwait (the waiting task's children), at the end of
// a taskgroup (the taskgroup's tasks) and at the end of the region (a team barrier: any, until
// every member arrived and none is left). A
// task with depend clauses is queued once the earlier siblings it depends on are complete
// (task_depend.cpp keeps the edges; the completion of a predecessor queues it). A detached task
// is complete once its body returned and its event (its node) was fulfilled, by any thread.
// While a task runs, the thread's current task (its identity: current_task(), which owns nest
// locks), taskgroup, finality, node and ICVs (a copy of its encountering task's when it was
// created, as libgomp's; what it sets stays its own) are the task's; its thread number, and with
// it its task reduction copies, are the executing thread's.
//
// Cancellation (cancel.cpp decides it, as libgomp): a queued task that has not started
// when its team was cancelled (`cancel parallel`) or its taskgroup was is taken off the queue
// and completed without running, unless its data was copy-constructed (libgomp's
// copy_ctors_done). The barrier is here too, with its cancellable form: `cancel parallel` sets
// kBarCancelled in the team's bar_gen and wakes the team (team_cancel); cancellable waiters then
// leave with true and later cancellable arrivals return at once, as libgomp's; plain waiters
// leave only when the generation proper moves. The last member to arrive clears the team's
// ws_cancelled (libgomp: at every team barrier).
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <new>
#include <type_traits>

#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/task_node.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "base/assert.h"
#include "base/clock.h"
#include "core/futex.h"
#include "core/wait.h"
#include "core/workers.h"

// 0 at compile time (-DPOOLSHIM_OPENMP_DEFERRED_TASKS=0): every task undeferred, as before
// deferred tasks (for comparisons; the scheduling points then find nothing queued).
#ifndef POOLSHIM_OPENMP_DEFERRED_TASKS
#define POOLSHIM_OPENMP_DEFERRED_TASKS 1
#endif

namespace poolshim::abi::openmp::runtime {

namespace {

constexpr unsigned long kPendingPerMember = 64;  // libgomp's bound before tasks run undeferred

void release(TaskNode* n) {
  if (n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    n->~TaskNode();
    free(n);
  }
}

void complete(TaskNode* n) {
  Team* t = n->team;
  TaskNode* parent = n->parent;
  TaskGroup* g = n->taskgroup;
  t->task_inflight.fetch_add(1, std::memory_order_acq_rel);
  if (n->deps != nullptr) {  // its successors may start (task_depend.cpp)
    t->task_lock.lock();
    depend_complete_locked(n);
    t->task_lock.unlock();
  }
  if (g != nullptr) {
    unsigned long in_group = g->tasks.fetch_sub(1, std::memory_order_acq_rel);
    POOLSHIM_ASSERT(in_group > 0);  // the taskgroup counted this task when it was queued
  }
  release(n);
  release(parent);  // an implicit task's node never reaches 0 here (its owner frees it)
  unsigned long pending = t->task_pending.fetch_sub(1, std::memory_order_acq_rel);
  POOLSHIM_ASSERT(pending > 0);  // the team counted this task when it was created
  notify(t);
  t->task_inflight.fetch_sub(1, std::memory_order_release);
}

void end_hold(TaskNode* n) {
  if (n->holds.fetch_sub(1, std::memory_order_acq_rel) == 1) complete(n);
}

void run(TaskNode* n) {
  ThreadState& s = me();
  TaskGroup* taskgroup = s.taskgroup;
  bool in_final = s.in_final;
  const void* task = s.task;
  TaskNode* node = s.node;
  Icv icv = s.icv;
  s.taskgroup = n->taskgroup;
  s.in_final = n->final;
  s.task = n;
  s.node = n;
  s.icv = n->icv;
  // A task of a cancelled team or taskgroup does not start, unless its data was copy-constructed
  // (libgomp runs those, so that the copies are destroyed).
  if (n->copied || !(task_cancelled() || taskgroup_cancelled(n->taskgroup))) n->fn(n->arg);
  s.taskgroup = taskgroup;
  s.in_final = in_final;
  s.task = task;
  s.node = node;
  s.icv = icv;
  end_hold(n);
}

// Any queued task (barriers, a region's end): taken oldest first, the queue's FIFO order.
struct AnyTask {
  bool operator()(const TaskNode*) const { return true; }
};
constexpr AnyTask any{};

// A queued task that pick accepts, taken off the queue; nullptr if none. AnyTask takes the
// oldest; any other pick (a taskwait's children, a taskgroup's tasks, a dependence) scans from
// the newest, as libgomp runs a parent's children newest first: what such a wait wants was
// queued by it just now, behind the team's older tasks, and the scan holds the team's lock.
template <typename Pick>
TaskNode* take(Team* t, Pick pick) {
  constexpr bool kOldestFirst = std::is_same_v<Pick, AnyTask>;
  if (t->task_queued.load(std::memory_order_acquire) == 0) return nullptr;
  t->task_lock.lock();
  TaskNode* n = kOldestFirst ? t->task_head : t->task_tail;
  while (n != nullptr && !pick(n)) n = kOldestFirst ? n->next : n->prev;
  if (n != nullptr) {
    (n->prev != nullptr ? n->prev->next : t->task_head) = n->next;
    (n->next != nullptr ? n->next->prev : t->task_tail) = n->prev;
    n->prev = n->next = nullptr;
    t->task_queued.fetch_sub(1, std::memory_order_relaxed);
  }
  t->task_lock.unlock();
  return n;
}

// Runs the tasks pick accepts until done() holds; spins as the pool's idle workers do, by time
// (wait_spin_ns(): wait::kSpinNs, 0 with OMP_WAIT_POLICY=passive; the clock every
// wait::kClockPauses pauses), running any task that comes meanwhile, then sleeps on the team's
// task_event (core/wait.h's sleep_on, counted in task_sleepers).
template <typename Done, typename Pick>
void wait_until(Team* t, Done done, Pick pick) {
  long deadline = 0;
  for (unsigned i = 1;; ++i) {
    uint32_t e = t->task_event.load(std::memory_order_acquire);
    if (done()) return;
    if (TaskNode* n = take(t, pick)) {
      run(n);
      deadline = 0;
      continue;
    }
    core::cpu_relax();
    if (i % core::wait::kClockPauses != 0) continue;
    long now = base::now_ns();
    if (deadline == 0) deadline = now + wait_spin_ns();
    if (now < deadline) continue;
    // done() is asked again once counted as a sleeper: a waker whose change needs no task run
    // may then skip notify() while nobody sleeps (region_member_end's last arrival).
    core::wait::sleep_on(t->task_event, e, core::wait::SleepCount{t->task_sleepers}, done, [] {});
  }
}

TaskNode* implicit_node() {
  ThreadState& s = me();
  if (s.node == nullptr) {
    void* mem = xmalloc(sizeof(TaskNode));
    s.node = new (mem) TaskNode;
    s.node->implicit = true;
    s.node->team = s.team;
  }
  return s.node;
}

}  // namespace

// Something a task wait may be waiting for changed.
void notify(Team* t) {
  t->task_event.fetch_add(1, std::memory_order_seq_cst);
  if (t->task_sleepers.load(std::memory_order_seq_cst) != 0)
    core::futex_wake(&t->task_event, INT_MAX);
}

void queue_locked(Team* t, TaskNode* n) {
  POOLSHIM_ASSERT(n->prev == nullptr && n->next == nullptr);  // a task is queued once
  n->prev = t->task_tail;
  (t->task_tail != nullptr ? t->task_tail->next : t->task_head) = n;
  t->task_tail = n;
  t->task_queued.fetch_add(1, std::memory_order_release);
}

bool task_deferrable(unsigned long extra, bool detached) {
  if (!POOLSHIM_OPENMP_DEFERRED_TASKS) return false;
  const ThreadState& s = me();
  const Team* t = s.team;
  return t != nullptr && (t->n > 1 || detached) && !s.in_final &&
         t->task_pending.load(std::memory_order_relaxed) + extra <= kPendingPerMember * t->n;
}

TaskNode* task_alloc(void (*fn)(void*), long arg_size, long arg_align, bool detach, char** arg) {
  size_t align = arg_align > 1 ? static_cast<size_t>(arg_align) : 1;
  size_t size = arg_size > 0 ? static_cast<size_t>(arg_size) : 0;
  void* mem = xmalloc(sizeof(TaskNode) + size + align - 1);
  TaskNode* n = new (mem) TaskNode;
  n->fn = fn;
  n->arg = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(n + 1) + align - 1) &
                                   ~static_cast<uintptr_t>(align - 1));
  n->event.node = n;
  if (detach) n->holds.store(2, std::memory_order_relaxed);
  *arg = n->arg;
  return n;
}

void task_submit(TaskNode* n, bool final, bool copied, void** depend) {
  ThreadState& s = me();
  Team* t = s.team;
  n->team = t;
  n->final = final;
  n->copied = copied;
  n->taskgroup = s.taskgroup;
  n->icv = s.icv;
  TaskNode* parent = implicit_node();
  n->parent = parent;
  parent->refs.fetch_add(1, std::memory_order_relaxed);
  if (n->taskgroup != nullptr) n->taskgroup->tasks.fetch_add(1, std::memory_order_relaxed);
  t->task_pending.fetch_add(1, std::memory_order_acq_rel);
  if (depend != nullptr) n->deps = depend_parse(depend, &n->ndeps);
  t->task_lock.lock();
  // With dependences on siblings not yet complete, the last of them queues it (task_depend.cpp).
  if (n->deps == nullptr || depend_register_locked(parent, n, true) == 0) queue_locked(t, n);
  t->task_lock.unlock();
  notify(t);
}

void task_wait_children() {
  ThreadState& s = me();
  TaskNode* p = s.node;
  if (p == nullptr || p->refs.load(std::memory_order_acquire) == 1) return;
  wait_until(
      s.team, [p] { return p->refs.load(std::memory_order_acquire) == 1; },
      [p](const TaskNode* n) { return n->parent == p; });
}

void task_wait_depend(void** depend) {
  ThreadState& s = me();
  TaskNode* p = s.node;
  if (p == nullptr || s.team == nullptr) return;  // no deferred sibling
  Team* t = s.team;
  TaskNode waiter;
  waiter.waiter = true;
  waiter.deps = depend_parse(depend, &waiter.ndeps);
  t->task_lock.lock();
  unsigned preds = p->dep_children != nullptr ? depend_register_locked(p, &waiter, false) : 0;
  t->task_lock.unlock();
  if (preds == 0) return;
  // As libgomp: meanwhile it runs only the siblings it waits for, never an unrelated one (which
  // might wait for what its creator does after this).
  wait_until(
      t, [&waiter] { return waiter.npred.load(std::memory_order_acquire) == 0; },
      [p, &waiter](const TaskNode* n) {
        return n->parent == p && n->deps != nullptr && depend_conflict(n, &waiter);
      });
}

TaskNode* task_undeferred_begin() {
  ThreadState& s = me();
  TaskNode* outer = s.node;
  s.node = nullptr;  // the deferred tasks it creates are its children (implicit_node)
  return outer;
}

void task_undeferred_end(TaskNode* outer) {
  ThreadState& s = me();
  TaskNode* own = s.node;
  s.node = outer;
  if (own == nullptr) return;
  // Its children hold references to its node: the last one to complete frees it.
  own->implicit = false;
  release(own);
}

void task_wait_group(TaskGroup* g) {
  if (g->tasks.load(std::memory_order_acquire) == 0) return;
  wait_until(
      me().team, [g] { return g->tasks.load(std::memory_order_acquire) == 0; },
      [g](const TaskNode* n) { return n->taskgroup == g; });
}

void task_fulfill(TaskNode* n) { end_hold(n); }

void region_member_end() {
  ThreadState& s = me();
  Team* t = s.team;
  if (t == nullptr) return;
  // The region's end is a team barrier, as libgomp's: a member leaves once every member has
  // arrived and the team has no task left, running tasks meanwhile. Leaving when no task is
  // pending is not enough: a member still in the body may create tasks that only another member
  // can run (its own waits run only their own tasks: a taskgroup's end waits for a task that
  // depends on one outside the taskgroup, libgomp's depend-3.c).
  const unsigned all = t->n;
  // The last arrival wakes sleepers only: a waiter raises task_sleepers before it asks done()
  // again (wait_until), and this reads it after its increment (both seq_cst).
  if (t->end_arrived.fetch_add(1, std::memory_order_seq_cst) + 1 == all &&
      t->task_sleepers.load(std::memory_order_seq_cst) != 0)
    notify(t);
  auto done = [t, all] {
    return t->end_arrived.load(std::memory_order_acquire) == all &&
           t->task_pending.load(std::memory_order_acquire) == 0;
  };
  if (!done()) wait_until(t, done, any);
  // A completion's last steps (its notify) follow its decrement of task_pending: brief, and
  // not notified, so spun on.
  for (unsigned i = 1; t->task_inflight.load(std::memory_order_acquire) != 0; ++i)
    if ((i & 1023) == 0)
      sched_yield();
    else
      core::cpu_relax();
  if (s.node != nullptr && s.node->implicit) {
    s.node->~TaskNode();
    free(s.node);
  }
  s.node = nullptr;
}

namespace {

// Central barrier: every member counts itself in (the last one clears ws_cancelled); whichever
// member then sees all arrived and no task left resets the count (one wins the exchange) and
// bumps the generation, kBarCancelled kept. Cancellable: true when the team was cancelled,
// before the call (at once) or while waiting (the waiter leaves, queued tasks or not).
bool barrier_wait(Team* t, bool cancellable) {
  uint32_t gen = t->bar_gen.load(std::memory_order_acquire);
  if (cancellable && (gen & kBarCancelled) != 0) return true;
  if (t->bar_arrived.fetch_add(1, std::memory_order_acq_rel) == t->n - 1)
    t->ws_cancelled.store(false, std::memory_order_relaxed);  // libgomp: every team barrier
  bool cancelled = false;
  auto released = [t, gen, cancellable, &cancelled] {
    uint32_t g = t->bar_gen.load(std::memory_order_acquire);
    if (((g ^ gen) & ~kBarCancelled) != 0) return true;
    if (cancellable && (g & kBarCancelled) != 0) return cancelled = true;
    uint32_t all = t->n;
    if (t->bar_arrived.load(std::memory_order_acquire) != all ||
        t->task_pending.load(std::memory_order_acquire) != 0)
      return false;
    if (!t->bar_arrived.compare_exchange_strong(all, 0, std::memory_order_acq_rel)) return false;
    g = t->bar_gen.load(std::memory_order_relaxed);
    while (!t->bar_gen.compare_exchange_weak(g, (g & kBarCancelled) | ((g + 1) & ~kBarCancelled),
                                             std::memory_order_seq_cst)) {
    }
    notify(t);
    return true;
  };
  wait_until(t, released, any);
  return cancelled;
}

// A team of 1's barrier: its deferred tasks (detached ones: task_deferrable) complete first.
void run_pending_alone(Team* t) {
  if (t->task_pending.load(std::memory_order_acquire) != 0)
    wait_until(
        t, [t] { return t->task_pending.load(std::memory_order_acquire) == 0; }, any);
}

}  // namespace

void team_barrier() {
  Team* t = me().team;
  if (t == nullptr) return;
  if (t->n > 1) {
    barrier_wait(t, false);
    return;
  }
  run_pending_alone(t);
  if (t->ws_cancelled.load(std::memory_order_relaxed))
    t->ws_cancelled.store(false, std::memory_order_relaxed);  // the last (only) arrival
}

bool team_barrier_cancel() {
  Team* t = me().team;
  if (t == nullptr) return false;
  if (t->n > 1) return barrier_wait(t, true);
  if ((t->bar_gen.load(std::memory_order_acquire) & kBarCancelled) != 0) return true;
  run_pending_alone(t);
  t->ws_cancelled.store(false, std::memory_order_relaxed);  // the last (only) arrival
  return false;
}

void team_cancel(Team* t) {
  if ((t->bar_gen.fetch_or(kBarCancelled, std::memory_order_seq_cst) & kBarCancelled) == 0)
    notify(t);
}

}  // namespace poolshim::abi::openmp::runtime
