// A participant's share (participate.h): claiming, stealing from stalled runs, and watching the
// runs in progress until the call ends.
#include "core/participate.h"

#include <atomic>
#include <exception>

#include "base/clock.h"
#include "core/busy.h"
#include "core/counters.h"
#include "core/futex.h"
#include "core/items.h"
#include "core/lanes.h"
#include "core/publish.h"
#include "core/workers.h"

namespace poolshim::core {

__thread unsigned t_task_depth POOLSHIM_FAST_TLS = 0;
__thread size_t t_ran POOLSHIM_FAST_TLS = 0;

void record_failure(Job& job) {
  job.cancelled.store(true, std::memory_order_relaxed);
  bool expected = false;
  POOLSHIM_COUNT_SHARED();
  if (job.has_error.compare_exchange_strong(expected, true, std::memory_order_acq_rel))
    job.error = std::current_exception();
}

namespace {

using base::now_ns;

// A participant that finds nothing to claim watches the runs in progress for this long without
// progress before it takes their unstarted items: long enough that a run of short items finishes
// untouched (a steal costs a process-wide barrier, microseconds), short enough that a blocked or
// long item never keeps the items behind it waiting for long.
constexpr long kStallNs = 50 * 1000;
// How often a watcher reads the open runs' progress.
constexpr long kLookNs = 2 * 1000;

// What a watcher sees in one scan of the other lanes.
constexpr size_t kNone = ~size_t{0};
struct Scan {
  size_t unclaimed = kNone;  // a lane with items nobody has claimed
  size_t unstarted = kNone;  // a run with items its owner has not started (progress looks only)
  bool open = false;         // some other run is not closed (its items may still be running)
  bool pending = false;      // a claim or a steal is moving items: look again
};

// One look at the other lanes. `progress`: also read how far each open run has got (its owner's
// per-item line: read every kLookNs only, so that a watcher does not turn every take() of the
// owner into a cache miss).
Scan scan(const Job& job, size_t me, bool progress) {
  Scan r;
  // Lengths first, then the runs: a claim that drained a lane after our read of its length was
  // announced before it (claiming()), so the runs' read below sees the claimer's flag or run.
  // Every lane drained (job.drained): no length to read.
  if (!all_claimed(job)) {
    for (size_t k = 1; k < job.lanes && r.unclaimed == kNone; ++k) {
      size_t j = lane_after(me, k, job.lanes);
      if (job.lane[j].length.load(std::memory_order_acquire) > 0) r.unclaimed = j;
    }
  }
  for (size_t k = 1; k < job.lanes; ++k) {
    size_t j = lane_after(me, k, job.lanes);
    const Run& run = job.lane[j].run;
    if (run.in_claim() || run.busy()) {
      r.pending = true;
      continue;
    }
    size_t end = run.end();
    if (end == 0) continue;  // closed
    r.open = true;
    if (progress && r.unstarted == kNone && end > run.started()) r.unstarted = j;
  }
  return r;
}

// Participant me takes the unstarted items of lane `from`'s run (all of them, or the upper half)
// and runs them as its own run; adds what it ran to the done count. False: nothing taken.
bool steal_into(Job& job, size_t me, size_t from, bool half, size_t* mine) {
  size_t b, e;
  POOLSHIM_COUNT_SHARED();
  job.steals.fetch_add(1, std::memory_order_acq_rel);  // odd: items between runs
  const bool got = job.lane[from].run.steal(job.fence, &b, &e, half);
  if (got) job.lane[me].run.open(b, e, job.fence);  // inside the odd window: thieves wait
  POOLSHIM_COUNT_SHARED();
  job.steals.fetch_add(1, std::memory_order_acq_rel);
  if (got) {
    *mine += run_opened(job, me, b);
    add_done(job, mine);
  }
  return got;
}

// Nothing was left to claim: a watcher stays while some run holds items nobody has started, and
// takes them from a run that has made no progress for kStallNs (its current item blocks or runs
// long). It returns when every item of the call has run (job.done: one line, read in O(1)), every
// other run is closed, or every item of the call has been started by someone (or the call is
// cancelled). While every lane is drained the lanes are first left alone for kLookNs, in which
// the common end of a call (the last runs finish) is seen on the done count alone; only a call
// whose last items take longer is scanned lane by lane. Between looks a watcher backs off, from a
// few pauses (a call whose last items end now returns at once) to about a microsecond. The caller
// withdraws its call on the way in and then waits on the slot's references instead of the done
// count (left_alone()).
class Watcher {
 public:
  Watcher(Job& job, size_t me, bool worker, size_t mine)
      : job_(job),
        me_(me),
        worker_(worker),
        mine_(mine),
        // A worker in a patient call (one_run): every item is in the caller's run, so it looks
        // at once and takes half of what the caller has not started, without waiting for a
        // stall: the call was predicted short and is not (or the caller's item blocks), and its
        // patience was the wait.
        eager_(worker && job.one_run),
        // A scan found no lane with an item to claim: as good as all_claimed() (lengths only go
        // down), also before every owner has counted its lane drained. The caller knows it.
        none_unclaimed_(!worker) {
    if (eager_) quiet_until_ = 1;  // no quiet period: its first look is now
  }

  Share run() {
    add_done(job_, &mine_);
    while (!cancelled(job_)) {
      const Step s = step();
      if (s == Step::done) return Share::done;
      if (s == Step::left) return Share::left;
      if (s == Step::wait) back_off();
    }
    return Share::done;
  }

 private:
  enum class Step { again, wait, done, left };

  Step step() {
    if (!worker_ && job_.withdrawn) {
      // The slot's line changes only when a worker joins or leaves (never while it runs items):
      // polled without backing off, as detach() does, the caller sees the last worker leave at
      // once (a backoff of up to 256 pauses would add microseconds to every call's end).
      for (int i = 0; i < 16; ++i, cpu_relax())
        if (left_alone(job_)) return Step::done;
    } else if (all_done(job_)) {
      return Step::done;
    }
    const long now = now_ns();
    if (quiet_until_ == 0) {
      quiet_until_ = now + kLookNs;
      // The first look at the runs' progress lines waits as long: reading them now would only
      // turn the owners' next take() into misses, and no run stalls that soon (kStallNs).
      next_look_ = quiet_until_;
    }
    if (now < quiet_until_ && (none_unclaimed_ || all_claimed(job_))) {  // O(1): the last runs end
      if (worker_ && busy::over_budget()) return Step::left;
      return !worker_ && job_.withdrawn ? Step::again : Step::wait;  // polled above
    }
    return look(now);
  }

  Step look(long now) {
    const uint32_t seq = job_.steals.load(std::memory_order_acquire);
    const bool progress = now >= next_look_;
    const Scan sc = scan(job_, me_, progress);
    if (sc.unclaimed != kNone) {  // a lane another participant left (the budget, an unwind)
      claim_left(sc.unclaimed);
      return Step::again;
    }
    none_unclaimed_ = true;
    const bool quiet =
        !sc.pending && (seq & 1) == 0 && job_.steals.load(std::memory_order_acquire) == seq;
    if (quiet && !sc.open) return Step::done;  // every other run is closed
    if (progress) {
      next_look_ = now + kLookNs;
      const Step s = judge(now, sc.unstarted, quiet);
      if (s != Step::wait) return s;
    }
    if (worker_ && busy::over_budget()) return Step::left;
    return Step::wait;
  }

  // Claims and runs what is left in lane `from`.
  void claim_left(size_t from) {
    size_t begin, got;
    while (!cancelled(job_) &&
           (got = claim_for<claim_back>(job_, me_, job_.lane[from], &begin)) != 0)
      mine_ += execute(job_, me_, job_.offset + begin, job_.offset + begin + got);
    add_done(job_, &mine_);
  }

  // A progress look found `unstarted` (a run with items its owner has not started, or kNone).
  Step judge(long now, size_t unstarted, bool quiet) {
    if (unstarted == kNone) return quiet ? Step::done : Step::wait;  // every item has started
    if (eager_) {
      if (!steal_into(job_, me_, unstarted, true, &mine_)) return Step::wait;
      next_look_ = 0;
      return Step::again;
    }
    if (unstarted != tracked_ || job_.lane[unstarted].run.started() != tracked_started_) {
      tracked_ = unstarted;  // a new run to watch, or it moved on: start the clock again
      tracked_started_ = job_.lane[tracked_].run.started();
      since_ = now;
      return Step::wait;
    }
    if (now - since_ <= kStallNs) return Step::wait;
    // A run has stalled (an item blocks, perhaps on another item of this call): the call is
    // offered to joiners again, so that a worker can come and take the items nobody has started,
    // also from the run the caller is about to steal (if it blocks in turn).
    if (!worker_) republish(job_);
    steal_into(job_, me_, tracked_, false, &mine_);
    tracked_ = kNone;
    next_look_ = 0;
    return Step::again;
  }

  void back_off() {
    for (unsigned i = 0; i < pause_; ++i) cpu_relax();
    if (pause_ < 256) pause_ *= 2;
  }

  Job& job_;
  const size_t me_;
  const bool worker_;
  size_t mine_;  // items run and not yet added to the done count
  const bool eager_;
  bool none_unclaimed_;
  size_t tracked_ = kNone, tracked_started_ = 0;  // the run being watched, and its progress
  long since_ = 0, next_look_ = 0, quiet_until_ = 0;
  unsigned pause_ = 4;
};

// The caller comes here after it found every lane empty (its own, then each other one in turn;
// lengths only go down): a worker joining now could claim nothing, so the call is unpublished
// now, while the last runs finish, instead of after them.
Share watch(Job& job, size_t me, bool worker, size_t mine) {
  if (!worker) {
    // No lane is worth joining any more (every one is empty): a worker that took a reference just
    // before the withdrawal reads this on the line it reads anyway (has_free_lane()) and turns
    // back before the busy count and a lane. A hint only: republish() lowers it again.
    job.next_lane.store(job.lanes, std::memory_order_relaxed);
    withdraw(job);
    // No worker inside (the slot's line is the one withdraw() just wrote): the caller ran every
    // item, and nobody needs its count.
    if (left_alone(job)) return Share::done;
  }
  return Watcher(job, me, worker, mine).run();
}

// Claims from the front of the participant's own lane, then from the back of the others'.
// Returns false when it left for the budget (its items added to the done count).
bool claim_lanes(Job& job, size_t me, bool worker, size_t* mine) {
  size_t begin, got;
  Lane& own = job.lane[me];
  // The cascade (workers.h, wake_one): a worker whose first claim left items in its own lane (the
  // call is young: nobody has stolen its lane dry) wakes the next sleeper while the call has a
  // free lane and the budget room. A worker that arrives late wakes nobody: the next one would
  // find every lane taken.
  bool cascade = worker;
  while (!cancelled(job) && (got = claim_for<claim_front>(job, me, own, &begin)) != 0) {
    if (cascade) {
      cascade = false;
      if (own.length.load(std::memory_order_relaxed) > 0 && has_free_lane(job))
        workers::wake_one(busy::room(), false);
    }
    *mine += execute(job, me, job.offset + begin, job.offset + begin + got);
    if (worker && busy::over_budget()) return add_done(job, mine), false;
  }
  // The caller of a quiet call (patience) leaves its lane uncounted, one RMW less: no worker is
  // inside it before its patience ran out, and the count only ever spares a participant a read
  // of the lanes (one that joins late reads them instead).
  if (!cancelled(job) && (worker || !job.quiet)) tell_drained(job, own);
  for (size_t k = 1; k < job.lanes && !all_claimed(job); ++k) {
    Lane& victim = job.lane[lane_after(me, k, job.lanes)];
    while (!cancelled(job) && (got = claim_for<claim_back>(job, me, victim, &begin)) != 0) {
      *mine += execute(job, me, job.offset + begin, job.offset + begin + got);
      if (worker && busy::over_budget()) return add_done(job, mine), false;
    }
  }
  return true;
}

}  // namespace

Share participate(Job& job, size_t me, bool worker) {
  TaskScope scope;
  size_t mine = 0;
  // The caller of a patient call: every item in one run (pool.cpp, one_run()); a worker that
  // joins takes half of what it has not started (the Watcher's eager look).
  if (!worker && job.one_run) {
    mine = execute(job, me, job.offset, job.offset + job.range);
    return watch(job, me, worker, mine);
  }
  if (!claim_lanes(job, me, worker, &mine)) return Share::left;
  return watch(job, me, worker, mine);
}

}  // namespace poolshim::core
