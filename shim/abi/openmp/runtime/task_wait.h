// The queues of a team's deferred tasks, the bound on each creator's pending ones (whether a new
// task is deferred: task_deferrable), and the one wait that runs them (task_queue.cpp's taskwait
// and taskgroup end, team_barrier.cpp's barrier and region end): a member waiting for something
// runs the queued tasks it may run meanwhile, spins by time, then sleeps on the team's task_event.
#pragma once
#include <algorithm>
#include <atomic>
#include <type_traits>

#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/task_node.h"
#include "base/clock.h"
#include "core/futex.h"
#include "core/wait.h"

// 0 at compile time (-DPOOLSHIM_OPENMP_DEFERRED_TASKS=0): every task undeferred, as before
// deferred tasks (for comparisons; the scheduling points then find nothing queued).
#ifndef POOLSHIM_OPENMP_DEFERRED_TASKS
#define POOLSHIM_OPENMP_DEFERRED_TASKS 1
#endif

namespace poolshim::abi::openmp::runtime {

// One member's share of its team's deferred tasks, on a line of its own. created and completed
// only grow (a task is counted in created when it is submitted and in completed when it is
// complete, both in its home's queue), so a reader that sums every member's completed before
// every member's created never sees fewer tasks pending than there were when it started reading
// the created counts (pending_in()).
struct alignas(64) TaskQueue {
  Lock lock;                 // head, tail and the links of the nodes in it
  TaskNode* head = nullptr;  // oldest
  TaskNode* tail = nullptr;  // newest
  // Nodes in it: written under the lock (a plain load and store), read without it.
  std::atomic<unsigned long> queued{0};
  // Tasks charged to this member, ever: written by the member alone (task_submit), so a plain
  // load and store; read by anyone.
  std::atomic<unsigned long> created{0};
  std::atomic<unsigned long> completed{0};  // ... that are complete (by whoever completes them)
  std::atomic<unsigned> inflight{0};        // completions of its tasks still touching the team
  // How long the tasks its member ran at once take, in base::ticks(), while its queue was at its
  // bound (a running figure of every 64th; 0: none timed): a member that takes this queue's
  // tasks backs off when they are tiny and the queue is full (wait_until).
  std::atomic<uint32_t> inline_ticks{0};
};

// The team's queues, made by the first task submitted in it (nullptr before).
inline TaskQueue* queues_of(const Team* t) {
  return t->task_queues.load(std::memory_order_acquire);
}

// libgomp's bound before tasks run undeferred: 64 pending per member of the team. The shim counts
// each creator's own pending tasks against its share of 64 per member of a team of up to
// kBoundMembers, so that a creation reads its own line and one team word only: all of it while
// one member queues tasks (libgomp's bound, then), an even split, at least 64 each, once several
// do (about libgomp's team-wide count: a drain of twice as many tasks at the region's end made
// branch_task_tree 1.3x libgomp's; docs/openmp.md, "Tasks of every member"). Wider teams stop at
// kBoundMembers' worth, so that every member creating at once keeps as many waiting as LLVM's
// libomp at most (256 per thread; docs/openmp.md, "Differences").
constexpr unsigned long kPendingPerMember = 64;
constexpr unsigned kBoundMembers = 8;

// The bound itself: tasks of one creator pending before its next runs at once.
inline unsigned long bound_of(const Team* t) {
  return kPendingPerMember * (t->n < kBoundMembers ? t->n : kBoundMembers);
}

// Whether `pending` tasks of one creator exceed its share of the bound while several members
// queue tasks: an even split, at least kPendingPerMember each. pending > bound / creators is
// compared as pending * creators > bound (the same for integers), without a division on every
// task's path.
inline bool over_share(const Team* t, unsigned long pending) {
  const unsigned creators = t->task_creators.load(std::memory_order_relaxed);
  const unsigned long bound = bound_of(t);
  // Over the whole bound is over any share (and keeps the product below from overflowing: a
  // taskloop asks with all its tasks).
  const bool over = pending > bound ||
                    (creators > 1 && pending > kPendingPerMember && pending * creators > bound);
  POOLSHIM_ASSERT(
      over == (pending > (creators <= 1 ? bound : std::max(bound / creators, kPendingPerMember))));
  return over;
}

// Tasks charged to q's member and not complete (a creator's own line: task_deferrable).
inline unsigned long pending_of(const TaskQueue& q) {
  const unsigned long completed = q.completed.load(std::memory_order_acquire);
  return q.created.load(std::memory_order_relaxed) - completed;
}

// Whether a new task of the calling thread may be queued (state.h, before task_alloc): inline,
// as every task's path asks it, most of them to be told no (a busy team runs most tasks at once).
inline bool task_deferrable(unsigned long extra, bool alone = false) {
  if (!POOLSHIM_OPENMP_DEFERRED_TASKS) return false;
  ThreadState& s = me();
  s.queue_full = false;
  const Team* t = s.team;
  if (t == nullptr || !(t->n > 1 || alone) || s.in_final) return false;
  // libgomp's bound, on the creator's own pending tasks (over_share): its own line and the
  // team's count of creators only.
  const TaskQueue* qs = queues_of(t);
  const unsigned long own = qs != nullptr ? pending_of(qs[s.num]) : 0;
  s.queue_full = over_share(t, own + extra);
  return !s.queue_full;
}

// Tasks charged to the team and not complete (every completed count read before every created
// count: see TaskQueue).
inline unsigned long pending_in(const Team* t) {
  const TaskQueue* qs = queues_of(t);
  if (qs == nullptr) return 0;
  unsigned long completed = 0, created = 0;
  for (unsigned i = 0; i < t->n; ++i) completed += qs[i].completed.load(std::memory_order_acquire);
  for (unsigned i = 0; i < t->n; ++i) created += qs[i].created.load(std::memory_order_acquire);
  return created - completed;
}

// Runs a queued task taken off its queue (task_queue.cpp): its data environment while it runs,
// then its completion.
void run_task(TaskNode* n);

// Whether a member that took a task from member `home`'s queue should wait before it takes the
// next (task_queue.cpp): that queue is at its bound and its member runs its overflow at once,
// in tasks that take less than kTinyTaskTicks. Taking such a task moves its node, the queue's and
// its parent's lines and a malloc'd block between the CPUs, which costs both members more than
// the task, and only makes its creator queue one more (docs/openmp.md, "Tiny tasks"). In ticks
// (250 ns was measured; 500 ticks are 240 ns at the 2.1 GHz of the machine measured, 125-500 ns
// at 1-4 GHz): the clock cost a creator 5-8% of a tiny task's path (docs/openmp.md, "Tasks of
// every member").
constexpr uint32_t kTinyTaskTicks = 500;
bool takes_back_off(Team* t, unsigned home);
// Such a member takes nothing from that queue for 1 us after the first such task, doubling to
// 64 us, but goes on taking the other queues' tasks; a task that is not such ends the back-off.
// Only in a wait for any task (a barrier's): the creator runs its queue itself when it arrives
// there, where a taskwait or taskgroup would wait longer for the tasks it needs.
constexpr long kBackOffMinNs = 1000, kBackOffMaxNs = 64000;

// Any queued task (barriers, a region's end): taken oldest first, each queue's FIFO order.
struct AnyTask {
  bool operator()(const TaskNode*) const { return true; }
};
inline constexpr AnyTask any_task{};

// The queued children of a task (a taskwait's; wait_until's second choice).
struct ChildOf {
  const TaskNode* parent;
  bool operator()(const TaskNode* n) const { return n->parent == parent; }
};

// A node of queue q that pick accepts (q's lock held): AnyTask's is the oldest; any other pick's
// (a taskwait's children, a taskgroup's tasks, a dependence) is scanned for from the newest, as
// libgomp runs a parent's children newest first: what such a wait wants was queued by it just
// now, behind the older tasks.
template <typename Pick>
TaskNode* find_locked(const TaskQueue& q, Pick pick) {
  constexpr bool kOldestFirst = std::is_same_v<Pick, AnyTask>;
  TaskNode* n = kOldestFirst ? q.head : q.tail;
  while (n != nullptr && !pick(n)) n = kOldestFirst ? n->next : n->prev;
  return n;
}

// A queued task that pick accepts, taken off its queue; nullptr if none. Member `mine`'s queue is
// looked at first (its own tasks: a taskwait's children are there), then the others' in turn,
// but for member `avoid`'s (wait_until's back-off).
template <typename Pick>
TaskNode* take_queued(Team* t, unsigned mine, Pick pick, unsigned avoid = ~0u) {
  TaskQueue* qs = queues_of(t);
  if (qs == nullptr) return nullptr;
  for (unsigned k = 0; k < t->n; ++k) {
    unsigned j = mine + k < t->n ? mine + k : mine + k - t->n;
    TaskQueue& q = qs[j];
    if (j == avoid || q.queued.load(std::memory_order_acquire) == 0) continue;
    q.lock.lock();
    TaskNode* n = find_locked(q, pick);
    if (n != nullptr) {
      (n->prev != nullptr ? n->prev->next : q.head) = n->next;
      (n->next != nullptr ? n->next->prev : q.tail) = n->prev;
      n->prev = n->next = nullptr;
      q.queued.store(q.queued.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    }
    q.lock.unlock();
    if (n != nullptr) return n;
  }
  return nullptr;
}

// Whether some queue holds a task pick accepts (a waiter's last look before it sleeps).
template <typename Pick>
bool any_queued(Team* t, Pick pick) {
  TaskQueue* qs = queues_of(t);
  if (qs == nullptr) return false;
  for (unsigned j = 0; j < t->n; ++j) {
    TaskQueue& q = qs[j];
    if (q.queued.load(std::memory_order_acquire) == 0) continue;
    q.lock.lock();
    const bool found = find_locked(q, pick) != nullptr;
    q.lock.unlock();
    if (found) return true;
  }
  return false;
}

// Runs the tasks pick accepts until done() holds, and when or_child_of is set the queued children
// of that task while no task pick accepts is queued; spins as the pool's idle workers do, by time
// (wait_spin_ns(): wait::kSpinNs, 0 with OMP_WAIT_POLICY=passive; the clock every
// wait::kClockPauses pauses), running any task that comes meanwhile, then sleeps on the team's
// task_event (core/wait.h's sleep_on, counted in task_sleepers). notify() bumps the event only
// while somebody sleeps, so the sleeper's last look, once counted, asks both what it waits for
// and whether a task it could run is queued: either that look sees the waker's change, or the
// waker sees the sleeper counted and bumps the event it read before (core/wait.h).
template <typename Done, typename Pick>
void wait_until(Team* t, Done done, Pick pick, const TaskNode* or_child_of = nullptr) {
  const unsigned mine = me().num;
  long deadline = 0;
  long back_off = 0, avoid_until = 0;  // the back-off from member `avoid`'s queue
  unsigned avoid = ~0u;
  for (unsigned i = 1;; ++i) {
    uint32_t e = t->task_event.load(std::memory_order_acquire);
    if (done()) return;
    if (avoid_until != 0 && base::now_ns() >= avoid_until) avoid = ~0u, avoid_until = 0;
    TaskNode* n = take_queued(t, mine, pick, avoid);
    if (n == nullptr && or_child_of != nullptr) n = take_queued(t, mine, ChildOf{or_child_of});
    if (n != nullptr) {
      const unsigned home = n->home;
      run_task(n);
      deadline = 0;
      // Only a wait for any task (a barrier, a region's end) backs off: one that waits for
      // particular tasks (a taskwait's, a taskgroup's) would wait for them longer.
      if (!std::is_same_v<Pick, AnyTask> || home == mine || !takes_back_off(t, home)) {
        back_off = 0;
        continue;
      }
      back_off = back_off == 0 ? kBackOffMinNs : std::min(back_off * 2, kBackOffMaxNs);
      avoid = home;
      avoid_until = base::now_ns() + back_off;
      continue;
    }
    core::cpu_relax();
    // Backing off, it spins (at most kBackOffMaxNs): the queue it avoids is not empty, and a look
    // before sleeping would lock it.
    if (avoid_until != 0 || i % core::wait::kClockPauses != 0) continue;
    long now = base::now_ns();
    if (deadline == 0) deadline = now + wait_spin_ns();
    if (now < deadline) continue;
    auto stay_awake = [&] {
      std::atomic_thread_fence(std::memory_order_seq_cst);  // the count, then the last look
      return done() || any_queued(t, pick) ||
             (or_child_of != nullptr && any_queued(t, ChildOf{or_child_of}));
    };
    core::wait::sleep_on(t->task_event, e, core::wait::SleepCount{t->task_sleepers}, stay_awake,
                         [] {});
  }
}

}  // namespace poolshim::abi::openmp::runtime
