// The one pool as a scheduler (pool.h): the caller's path. A top-level call becomes a Job on the
// caller's stack (job.h), published in one of kSlots slots (slots.h, publish.h); workers
// (workers.cpp) join published calls (join.cpp) while the busy count (busy.h) is below the
// budget. The caller always works on its own call (participate.cpp), so a call completes even
// when every worker is busy elsewhere: no caller ever waits for another caller's call, and no
// lock is held while a task runs. Calls from inside a task run inline.
#include "core/pool.h"

#include <atomic>
#include <new>
#include <type_traits>

#include "base/assert.h"
#include "base/clock.h"
#include "core/busy.h"
#include "core/counters.h"
#include "core/items.h"
#include "core/job.h"
#include "core/lanes.h"
#include "core/participate.h"
#include "core/prediction.h"
#include "core/publish.h"
#include "core/size.h"
#include "core/slots.h"
#include "core/tls.h"
#include "core/workers.h"

namespace poolshim::core {
namespace {

// Lane lengths are int64_t: a range above this is run as consecutive windows.
constexpr size_t kMaxWindow = size_t{1} << 62;

static_assert(std::is_trivially_destructible<Lane>::value,
              "lanes in raw storage are never destroyed");

Prediction g_prediction[kSlots];  // the owner's: written and read by whoever owns the slot

// How wide a call may be is the size policy's (size.h); the scheduler only asks.
using size_policy::budget_in_force;
using size_policy::call_width;

POOLSHIM_FAST_TLS thread_local bool t_in_call = false;  // a top-level caller, for fork

void run_serial(size_t range, RangeFn fn, void* ctx, size_t offset) {
  TaskScope scope;
  Run run(offset, offset + range);  // nobody else can see it: take() is a compare
  fn(ctx, 0, offset, run);
}

struct CallerScope {  // busy accounting of a top-level caller, also across an unwinding task
  CallerScope() {
    busy::caller_enter();
    t_in_call = true;
  }
  ~CallerScope() {
    t_in_call = false;
    busy::caller_leave();
    // A call that lost a worker to the budget (a lane given back) regains one when this caller's
    // share frees room: wake one sleeper for it. Only then: waking a turned-away worker on every
    // caller's exit would have it wake, find no room, and sleep again, over and over.
    if (g_lanes_given_back.load(std::memory_order_relaxed) > 0 && busy::has_room())
      workers::wake_one(busy::room(), true);
  }
};

struct SlotOwner {  // releases the slot on every path, also when a task throws
  size_t s;
  ~SlotOwner() { release_slot(s); }
};

// A short patient call's lanes before it is published (patience, publish.h; docs/scheduler.md,
// "One run for a patient call"; prediction.h, kOneRunTicks): its caller runs every item as one
// run, without a claim, a steal or a drained count (each a locked RMW, the most of a patient
// call's cost). Every lane is left empty and counted drained, so that a worker that joins (its
// patience ran out, or it was woken because every worker slept) finds nothing to claim and no
// lane to scan, and takes the unstarted half of the caller's run at once instead (the Watcher's
// eager look). The lanes are as constructed (no item, split() is not called); plain stores: no
// worker can see the job before publish() stores it (release).
void one_run(Job& job) {
  for (size_t i = 0; i < job.lanes; ++i) job.lane[i].drained_told = true;
  job.drained.store(job.lanes, std::memory_order_relaxed);
  job.one_run = true;
  POOLSHIM_COUNT(kOneRunCalls, 1);
}

// The job of a window of `range` items on slot s, its lanes constructed in `storage` (only the
// lanes the call uses: a Lane is a cache line, no need to touch 16), lane 0 the caller's.
void prepare(Job& job, size_t range, RangeFn fn, void* ctx, size_t lanes, uint32_t flags,
             size_t offset, size_t s, Lane* storage) {
  job.fn = fn;
  job.ctx = ctx;
  job.offset = offset;
  job.flags = flags;
  job.lanes = lanes;
  job.slot = s;
  job.range = range;
  job.lane = storage;
  // Default-initialised, not value-initialised (`Lane()` would zero all three lines of each lane
  // first): only the fields with initialisers are written (the run's progress line is not).
  for (size_t i = 0; i < lanes; ++i) new (&job.lane[i]) Lane;  // trivially destructible
  job.lane[0].taken.store(1, std::memory_order_relaxed);       // the caller's
  POOLSHIM_COUNTERS_ONLY(history::record_lane(job, 0));
  job.fence = !heavy_barrier_ready();
}

// The caller's share of a published call, then the end of the call: every participant gone,
// every given-back lane forgotten (also when a task of the caller throws).
void run_published(Job& job) {
  try {
    participate(job, 0, false);
  } catch (...) {
    job.cancelled.store(true, std::memory_order_relaxed);
    detach(job);  // every claimed item has finished when this returns
    forget_given_back(job);
    throw;
  }
  detach(job);
  forget_given_back(job);
}

void run_window(size_t range, RangeFn fn, void* ctx, size_t lanes, uint32_t flags, size_t offset,
                Work work) {
  const size_t s = acquire_slot();
  if (s == kSlots) return run_serial(range, fn, ctx, offset);
  SlotOwner owner{s};
  alignas(Lane) unsigned char inline_storage[kInlineLanes * sizeof(Lane)];
  Lane* storage = reinterpret_cast<Lane*>(inline_storage);
  if (lanes > kInlineLanes) {
    storage = slot_lanes(g_slots[s], lanes);
    if (storage == nullptr) {
      storage = reinterpret_cast<Lane*>(inline_storage);
      lanes = kInlineLanes;
    }
  }
  Job job;
  prepare(job, range, fn, ctx, lanes, flags, offset, s, storage);
  POOLSHIM_COUNT(kCalls, 1);
  Prediction& last = g_prediction[s];
  if (last.fn != fn || last.work != work || last.range != range || last.lanes != lanes)
    last = Prediction{fn, work, range, lanes};
  const bool probe = last.probing();
  if (last.one_run())
    one_run(job);
  else
    split(job, range);
  publish(job, last.patient());
  const size_t ran_before = t_ran;
  // Timed only while the prediction is being made: once a call is published patient, a worker
  // that waits it out finds a long one still open (job.outlived_patience), without a clock on
  // the caller's path. A probe is timed.
  const bool timed = last.timed();
  const uint64_t started_at = timed ? base::ticks() : 0;
  run_published(job);
  const uint64_t elapsed = timed ? base::ticks() - started_at : 0;
  learn(last, t_ran - ran_before == range,
        !job.woke && !job.outlived_patience.load(std::memory_order_relaxed), probe, timed, elapsed);
  POOLSHIM_COUNTERS_ONLY(history::compare(job, range));
  if (job.has_error.load(std::memory_order_acquire)) std::rethrow_exception(job.error);
}

}  // namespace

void run_ranges(size_t range, RangeFn fn, void* ctx, size_t max_threads, uint32_t flags,
                Work work) {
  if (range == 0 || fn == nullptr) return;
  if (t_task_depth > 0) return run_serial(range, fn, ctx, 0);  // nested: inline, no pool state

  // The busy count is held against the budget in force: busy.cpp takes the computed budget on
  // its first use unless set_cap() set the limit before (and keeps it in step later).
  size_t w = call_width(max_threads);
  CallerScope caller;
  if (w <= 1 || range == 1) return run_serial(range, fn, ctx, 0);
  size_t have = workers::ensure(budget_in_force() - 1);
  if (have + 1 < w) w = have + 1;  // degraded or still spawning: fewer lanes, never a wait
  if (w <= 1) return run_serial(range, fn, ctx, 0);

  for (size_t offset = 0; offset < range;) {
    size_t n = range - offset < kMaxWindow ? range - offset : kMaxWindow;
    run_window(n, fn, ctx, n < w ? n : w, flags, offset, work);
    offset += n;
  }
}

void run(size_t range, TaskFn fn, void* ctx, size_t max_threads, uint32_t flags, Work work) {
  if (fn == nullptr) return;
  struct PerItem {
    TaskFn fn;
    void* ctx;
  } p{fn, ctx};
  run_ranges(
      range,
      [](void* c, size_t t, size_t begin, Run& r) {
        auto* x = static_cast<PerItem*>(c);
        Taker taker(r);
        for (size_t i = begin; taker.take(i); ++i) x->fn(x->ctx, t, i);
      },
      &p, max_threads, flags, work != 0 ? work : work_of(fn, ctx));
}

bool started() { return workers::count() > 0; }

bool in_task() { return t_task_depth > 0; }

const char* degraded_reason() { return workers::failure(); }

size_t workers_started() { return workers::count(); }
size_t workers_wanted() { return workers::wanted(); }

void pool_atfork_prepare() {
  workers::atfork_prepare();
  slots_atfork_prepare();
}
void pool_atfork_parent() { workers::atfork_parent(); }

// The child has only the forking thread: no worker exists, and every published call belonged
// to a thread of the parent, or, for a fork() from inside a task, is this thread's own call or
// the call whose share it runs as a worker. Unpublish them all; the next call starts workers
// afresh (docs/scheduler.md, "fork"). The forking thread keeps what it holds, because it goes on
// in the child and gives each back when its task returns:
//  - its busy share: a caller inside its call (CallerScope), and a worker inside a task (only a
//    counted worker runs tasks; a nested call runs inline and takes no share of its own);
//  - its slot, when it forked from a task of its own call (the child's next caller must not take
//    it: two owners of one slot unpublish each other's jobs and share one waiting flag);
//  - its reference on the slot whose call it works on, when it forked from a worker's task, and
//    that slot stays owned until the reference goes (slots.cpp, the orphan slot), since nobody in
//    the child owns that call.
// Its call then ends in the child like any other: the forking thread finishes its task and every
// item nobody had claimed; items other threads of the parent had claimed are not run in the
// child, and nothing waits for them (refs count only the forking thread's own reference).
void pool_atfork_child() {
  workers::atfork_child();
  // The registration for the heavy barrier is asked for again in the child's first call (two
  // system calls): a kernel need not keep it across fork.
  heavy_barrier_atfork_child();
  slots_atfork_child();
  lanes_atfork_child();
  bool holds_share = t_in_call || t_task_depth > 0;
  busy::reset_after_fork(holds_share ? 1 : 0);
}

}  // namespace poolshim::core
