// The team barrier and the end of a member's part of a region, both task scheduling points (they
// run the team's queued tasks while they wait: task_wait.h). As libgomp's: the barrier completes
// once every member arrived and the team has no task left, with its cancellable form: `cancel
// parallel` sets kBarCancelled in the team's barrier word and wakes the team (team_cancel);
// cancellable waiters then leave with true and later cancellable arrivals return at once; plain
// waiters leave only when the generation proper moves. The last member to arrive clears the
// team's ws_cancelled (libgomp: at every team barrier).
#include <sched.h>
#include <stdlib.h>

#include <atomic>

#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/task_node.h"
#include "abi/openmp/runtime/task_wait.h"
#include "base/assert.h"

namespace poolshim::abi::openmp::runtime {

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
  // The last arrival wakes the sleepers (notify() wakes only when some sleep).
  if (t->end_arrived.fetch_add(1, std::memory_order_seq_cst) + 1 == all) notify(t);
  auto done = [t, all] {
    return t->end_arrived.load(std::memory_order_acquire) == all && pending_in(t) == 0;
  };
  if (!done()) wait_until(t, done, any_task);
  // A completion's last steps (its notify) follow its count in completed: brief, and not
  // notified, so spun on. Each is counted in its home's inflight before its completed count.
  if (const TaskQueue* qs = queues_of(t)) {
    for (unsigned j = 0; j < t->n; ++j)
      for (unsigned i = 1; qs[j].inflight.load(std::memory_order_acquire) != 0; ++i)
        if ((i & 1023) == 0)
          sched_yield();
        else
          core::cpu_relax();
  }
  if (s.node != nullptr && s.node->implicit) {
    s.node->~TaskNode();
    free(s.node);
  }
  s.node = nullptr;
}

namespace {

// Central barrier, on one word (Team::bar): every member counts itself in with one fetch_add,
// which also reads the generation it waits in (the last one clears ws_cancelled); whichever member
// then sees all arrived and no task left moves the word from (generation, all) to (generation + 1,
// 0) with one exchange (one wins), kBarCancelled kept. Cancellable: true when the team was
// cancelled, before the call (at once) or while waiting (the waiter leaves, queued tasks or not).
bool barrier_wait(Team* t, bool cancellable) {
  if (cancellable && bar_cancelled(*t)) return true;
  const uint64_t before = t->bar.fetch_add(1, std::memory_order_acq_rel);
  const uint32_t gen = bar_generation(before);
  // Each member counts itself once per generation; a cancelled team's waiters may have left.
  POOLSHIM_ASSERT(bar_arrivals(before) < t->n || (gen & kBarCancelled) != 0);
  if (bar_arrivals(before) == t->n - 1 && t->ws_cancelled.load(std::memory_order_relaxed))
    t->ws_cancelled.store(false, std::memory_order_relaxed);  // libgomp: every team barrier
  bool cancelled = false;
  auto released = [t, gen, cancellable, &cancelled] {
    uint64_t v = t->bar.load(std::memory_order_acquire);
    const uint32_t g = bar_generation(v);
    if (((g ^ gen) & ~kBarCancelled) != 0) return true;
    if (cancellable && (g & kBarCancelled) != 0) return cancelled = true;
    if (bar_arrivals(v) != t->n || pending_in(t) != 0) return false;
    const uint32_t next = (g & kBarCancelled) | ((g + 1) & ~kBarCancelled);
    if (!t->bar.compare_exchange_strong(v, bar_word(next), std::memory_order_seq_cst)) return false;
    notify(t);
    return true;
  };
  wait_until(t, released, any_task);
  return cancelled;
}

// A team of 1's barrier: its deferred tasks (detached ones: task_deferrable) complete first.
void run_pending_alone(Team* t) {
  if (pending_in(t) != 0)
    wait_until(
        t, [t] { return pending_in(t) == 0; }, any_task);
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
  if (bar_cancelled(*t)) return true;
  run_pending_alone(t);
  t->ws_cancelled.store(false, std::memory_order_relaxed);  // the last (only) arrival
  return false;
}

void team_cancel(Team* t) {
  const uint64_t bit = bar_word(kBarCancelled);
  if ((t->bar.fetch_or(bit, std::memory_order_seq_cst) & bit) == 0) notify(t);
}

}  // namespace poolshim::abi::openmp::runtime
