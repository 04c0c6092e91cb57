// Cancellation in the native runtime, as libgomp does it (its parallel.c, bar.c,
// work.c, task.c, read for the semantics): nothing is cancelled unless cancel-var is true
// (OMP_CANCELLATION, read once). Then:
// - `cancel for` / `cancel sections` set the team's ws_cancelled; a cancellation point of the
//   same kind returns it; the last arrival at the construct's cancellable barrier clears it.
// - `cancel taskgroup` marks the innermost taskgroup (its parent when it is a worksharing
//   construct's); its cancellation points return true, and GOMP_task discards tasks met in it.
// - `cancel parallel` sets kBarCancelled in the team's barrier generation and wakes the
//   barrier: every cancellable barrier (GOMP_barrier_cancel, GOMP_loop_end_cancel,
//   GOMP_sections_end_cancel) returns true from then on, waiters included; taskgroup and
//   parallel cancellation points return true; tasks are discarded, and queued ones that have
//   not started do not start (task_queue.cpp; the barrier is team_barrier.cpp's).
// The compiler branches to the end of the construct on true.
#include <pthread.h>
#include <strings.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "config/options.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// gomp-constants.h's GOMP_CANCEL_* bits.
constexpr int kCancelParallel = 1, kCancelLoop = 2, kCancelSections = 4, kCancelTaskgroup = 8;

pthread_once_t g_cancel_once = PTHREAD_ONCE_INIT;

void read_cancel() {
  const char* v = config::raw_value("OMP_CANCELLATION");
  bool on = false;
  if (v != nullptr) {
    while (*v == ' ' || *v == '\t') ++v;
    on = strncasecmp(v, "true", 4) == 0;  // as libgomp's parse_boolean
  }
  g_cancel_var.store(on ? 2 : 1, std::memory_order_relaxed);
}

bool team_cancelled(const Team* t) { return t != nullptr && bar_cancelled(*t); }

}  // namespace

// cancel-var (state.h: a relaxed load on every task, not a pthread_once call).
std::atomic<int> g_cancel_var{0};

bool read_cancel_var() {
  pthread_once(&g_cancel_once, read_cancel);  // orders the store before this thread's load
  const int v = g_cancel_var.load(std::memory_order_relaxed);
  POOLSHIM_ASSERT(v == 1 || v == 2);  // read once, never unread again
  return v == 2;
}

bool team_or_taskgroup_cancelled() {
  const ThreadState& s = me();
  return team_cancelled(s.team) || taskgroup_cancelled(s.taskgroup);
}

void team_cleanup(Team* t) {
  if (!team_cancelled(t)) return;
  // Members that a cancellation sent past a construct never left it: free what is left.
  while (WorkShare* w = t->ws_head) {
    t->ws_head = w->next;
    delete w;
  }
}

}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

bool psn_GOMP_cancellation_point(int which) {
  if (!cancel_var()) return false;
  ThreadState& s = me();
  Team* t = s.team;
  if ((which & (kCancelLoop | kCancelSections)) != 0)
    return t != nullptr && t->ws_cancelled.load(std::memory_order_acquire);
  if ((which & kCancelTaskgroup) != 0 && taskgroup_cancelled(s.taskgroup)) return true;
  // A taskgroup's point also sees `cancel parallel`, which cancels every explicit task.
  return team_cancelled(t);
}

bool psn_GOMP_cancel(int which, bool do_cancel) {
  if (!cancel_var()) return false;
  if (!do_cancel) return psn_GOMP_cancellation_point(which);
  ThreadState& s = me();
  Team* t = s.team;
  if ((which & (kCancelLoop | kCancelSections)) != 0) {
    // Orphaned (no team): only the calling thread's construct is cancelled.
    if (t != nullptr) t->ws_cancelled.store(true, std::memory_order_release);
    return true;
  }
  if ((which & kCancelTaskgroup) != 0) {
    if (TaskGroup* g = s.taskgroup) {
      if (g->workshare && g->prev != nullptr) g = g->prev;
      g->cancelled.store(true, std::memory_order_release);
    }
    return true;
  }
  (void)kCancelParallel;
  if (t == nullptr) return true;  // libgomp would crash: an orphaned `cancel parallel`
  team_cancel(t);                 // kBarCancelled, and the team's waiters woken (team_barrier.cpp)
  return true;
}

bool psn_GOMP_barrier_cancel() { return team_barrier_cancel(); }

bool psn_GOMP_loop_end_cancel() {
  loop_end(false);
  return team_barrier_cancel();
}

bool psn_GOMP_sections_end_cancel() {
  loop_end(false);
  return team_barrier_cancel();
}

int psn_omp_get_cancellation() { return cancel_var(); }

}  // extern "C"
