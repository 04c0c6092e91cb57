// Deferred tasks of the native runtime: a team's task queues, the task scheduling points that run
// them (taskwait, the end of a taskgroup; the barriers are team_barrier.cpp's) and task completion.
//
// As libgomp (its task.c and team.c, read for the semantics, never copied): a task created in a
// team of more than one (or of one, when detached), with a true if clause, not inside a final
// task, while its creator has fewer pending than its share of the bound (over_share), is deferred:
// its data is copied into its node (with the copy function, else bytewise), it is bound to its
// encountering task (its parent, whose taskwait waits for it) and to that task's innermost
// taskgroup, and queued in its creator's queue (below; priorities are ignored, which the
// specification allows). Members run queued tasks while they wait: in a barrier (any task; the
// barrier completes once every member arrived and the team has no task left), in taskwait (the
// waiting task's children), at the end of a taskgroup (the taskgroup's tasks) and at the end of
// the region (a team barrier: any, until every member arrived and none is left).
//
// One queue per member, not one per team: a task is charged to the member that created it (its
// `home`), queued there, and counted there (created when queued, completed by whoever completes
// it). A member looks in its own queue first and then in the others', oldest first for any task,
// newest first for a wait's own tasks. So a member that creates tasks and runs them itself (a
// task's children, run by its taskwait) touches only its own queue's line, and a team whose one
// member creates tasks for the others (a master creating tasks) shares only that member's queue,
// where the team's single queue made every creation, every take and every completion of every
// member a miss on one line for all the others (docs/openmp.md, "Tasks: a queue per member").
// A creator at its bound times some of the tasks it runs at once; a member waiting in a barrier
// leaves a queue whose tasks take less than a few hundred nanoseconds to its creator for a while
// (task_wait.h's takes_back_off: taking them would cost both more than they do). A
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
// copy_ctors_done). The team barrier and the region's end, which run tasks too, are in
// team_barrier.cpp; the queues and the wait that both use, in task_wait.h.
#include <limits.h>
#include <stdlib.h>

#include <new>

#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/task_node.h"
#include "abi/openmp/runtime/task_wait.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "base/assert.h"
#include "core/futex.h"

namespace poolshim::abi::openmp::runtime {

namespace {

TaskQueue* make_queues(Team* t) {
  TaskQueue* qs = queues_of(t);
  if (qs != nullptr) return qs;
  void* mem = xaligned_alloc(alignof(TaskQueue), sizeof(TaskQueue) * t->n);
  TaskQueue* fresh = static_cast<TaskQueue*>(mem);
  for (unsigned i = 0; i < t->n; ++i) new (&fresh[i]) TaskQueue;
  if (t->task_queues.compare_exchange_strong(qs, fresh, std::memory_order_acq_rel,
                                             std::memory_order_acquire))
    return fresh;
  free(mem);  // another member made them first (TaskQueue is trivially destructible)
  return qs;
}

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
  TaskQueue& home = queues_of(t)[n->home];
  home.inflight.fetch_add(1, std::memory_order_acq_rel);
  if (n->detached) {
    const unsigned before = t->detached_incomplete.fetch_sub(1, std::memory_order_relaxed);
    POOLSHIM_ASSERT(before > 0);  // counted when it was submitted
    (void)before;
  }
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
  const unsigned long done = home.completed.fetch_add(1, std::memory_order_acq_rel);
  POOLSHIM_ASSERT(done < home.created.load(std::memory_order_acquire));  // created, then done
  (void)done;
  notify(t);
  home.inflight.fetch_sub(1, std::memory_order_release);
}

void end_hold(TaskNode* n) {
  if (n->holds.fetch_sub(1, std::memory_order_acq_rel) == 1) complete(n);
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

void run_task(TaskNode* n) {
  ThreadState& s = me();
  TaskGroup* taskgroup = s.taskgroup;
  bool in_final = s.in_final;
  const void* task = s.task;
  TaskNode* node = s.node;
  Icv icv;
  copy_icv(&icv, s.icv);
  s.taskgroup = n->taskgroup;
  s.in_final = n->final;
  s.task = n;
  s.node = n;
  copy_icv(&s.icv, n->icv);
  // A task of a cancelled team or taskgroup does not start, unless its data was copy-constructed
  // (libgomp runs those, so that the copies are destroyed).
  if (n->copied || !task_discarded()) n->fn(n->arg);
  s.taskgroup = taskgroup;
  s.in_final = in_final;
  s.task = task;
  s.node = node;
  copy_icv(&s.icv, icv);
  end_hold(n);
}

// Something a task wait may be waiting for changed: the waiters are woken, when any sleeps. The
// fence orders the change before the read of the sleepers' count (wait_until's sleepers count
// themselves, fence, then look again: either the look sees the change or this read sees them).
// Without it (the changes made seq_cst read-modify-writes instead) the figures were the same.
void notify(Team* t) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (t->task_sleepers.load(std::memory_order_relaxed) == 0) return;
  t->task_event.fetch_add(1, std::memory_order_seq_cst);
  core::futex_wake(&t->task_event, INT_MAX);
}

void queue_task(Team* t, TaskNode* n) {
  POOLSHIM_ASSERT(n->prev == nullptr && n->next == nullptr);  // a task is queued once
  TaskQueue& q = queues_of(t)[n->home];
  q.lock.lock();
  n->prev = q.tail;
  (q.tail != nullptr ? q.tail->next : q.head) = n;
  q.tail = n;
  q.queued.store(q.queued.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  q.lock.unlock();
}

void task_overflow_sample(uint64_t ticks) {
  const ThreadState& s = me();
  TaskQueue* qs = s.team != nullptr ? queues_of(s.team) : nullptr;
  if (qs == nullptr) return;  // (a queue at its bound exists: GOMP_task asks with no extra)
  TaskQueue& q = qs[s.num];
  const uint32_t took = ticks > 0x7fffffff ? 0x7fffffffu : static_cast<uint32_t>(ticks);
  const uint32_t before = q.inline_ticks.load(std::memory_order_relaxed);
  // A running figure (three parts the old, one the new); at least 1 once anything was timed.
  const uint32_t now = before == 0 ? took : static_cast<uint32_t>((3ull * before + took) / 4);
  q.inline_ticks.store(now != 0 ? now : 1, std::memory_order_relaxed);
}

bool takes_back_off(Team* t, unsigned home) {
  const TaskQueue& q = queues_of(t)[home];
  const uint32_t tiny = q.inline_ticks.load(std::memory_order_relaxed);
  // Near the bound (a few tasks below it: the one just taken, those its creator queued since).
  return tiny != 0 && tiny < kTinyTaskTicks && over_share(t, pending_of(q) + 8);
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
  if (detach) {
    n->holds.store(2, std::memory_order_relaxed);
    n->detached = true;
  }
  *arg = n->arg;
  return n;
}

void task_submit(TaskNode* n, bool final, bool copied, void** depend) {
  ThreadState& s = me();
  Team* t = s.team;
  POOLSHIM_ASSERT(s.num < t->n);  // the creator is a member of its team
  n->team = t;
  n->home = s.num;
  n->final = final;
  n->copied = copied;
  n->taskgroup = s.taskgroup;
  n->icv = s.icv;
  if (n->detached) t->detached_incomplete.fetch_add(1, std::memory_order_relaxed);
  TaskNode* parent = implicit_node();
  n->parent = parent;
  parent->refs.fetch_add(1, std::memory_order_relaxed);
  if (n->taskgroup != nullptr) n->taskgroup->tasks.fetch_add(1, std::memory_order_relaxed);
  std::atomic<unsigned long>& created = make_queues(t)[n->home].created;
  const unsigned long before = created.load(std::memory_order_relaxed);
  if (before == 0) {  // this member's first queued task in the team: one more creator
    const unsigned creators = t->task_creators.fetch_add(1, std::memory_order_relaxed);
    POOLSHIM_ASSERT(creators < t->n);  // each member counts itself once
    (void)creators;
  }
  created.store(before + 1, std::memory_order_release);
  if (depend != nullptr) {
    n->deps = depend_parse(depend, &n->ndeps);
    t->task_lock.lock();
    // With dependences on siblings not yet complete, the last of them queues it
    // (task_depend.cpp).
    const bool ready = depend_register_locked(parent, n, true) == 0;
    if (ready) queue_task(t, n);
    t->task_lock.unlock();
  } else {
    queue_task(t, n);
  }
  notify(t);
}

void task_wait_children() {
  ThreadState& s = me();
  TaskNode* p = s.node;
  if (p == nullptr || p->refs.load(std::memory_order_acquire) == 1) return;
  wait_until(
      s.team, [p] { return p->refs.load(std::memory_order_acquire) == 1; }, ChildOf{p});
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
  // Meanwhile it runs only the siblings it waits for, never an unrelated one (which might wait
  // for what its creator does after this); in a team of one, when none of those is queued (they
  // wait for their own dependences, perhaps on an older sibling that nobody else would run),
  // another sibling, as libgomp does in any team.
  wait_until(
      t, [&waiter] { return waiter.npred.load(std::memory_order_acquire) == 0; },
      [p, &waiter](const TaskNode* n) {
        return n->parent == p && n->deps != nullptr && depend_conflict(n, &waiter);
      },
      t->n == 1 ? p : nullptr);
}

void task_undeferred_release(TaskNode* own) {
  // Its children hold references to its node: the last one to complete frees it.
  own->implicit = false;
  release(own);
}

void task_wait_group(TaskGroup* g) {
  if (g->tasks.load(std::memory_order_acquire) == 0) return;
  // In a team of one, when none of its tasks is queued (they wait for their dependences), the
  // encountering task's other children, as libgomp's taskgroup end: one of them may be the
  // sibling they wait for, created before the taskgroup, which nobody else would run. (In a
  // larger team the other members run it, and this wait never runs a task outside its group.)
  const ThreadState& s = me();
  wait_until(
      s.team, [g] { return g->tasks.load(std::memory_order_acquire) == 0; },
      [g](const TaskNode* n) { return n->taskgroup == g; }, s.team->n == 1 ? s.node : nullptr);
}

void task_fulfill(TaskNode* n) { end_hold(n); }

void task_queues_free(Team* t) {
  TaskQueue* qs = t->task_queues.load(std::memory_order_acquire);
  if (qs == nullptr) return;
  for (unsigned j = 0; j < t->n; ++j)  // every member left: every task complete, none running
    POOLSHIM_ASSERT(qs[j].queued.load(std::memory_order_relaxed) == 0 &&
                    qs[j].inflight.load(std::memory_order_relaxed) == 0 &&
                    qs[j].created.load(std::memory_order_relaxed) ==
                        qs[j].completed.load(std::memory_order_relaxed));
  t->task_queues.store(nullptr, std::memory_order_relaxed);
  free(qs);
}

}  // namespace poolshim::abi::openmp::runtime
