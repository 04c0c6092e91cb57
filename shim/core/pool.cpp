// The one pool as a scheduler (pool.h). A top-level call becomes a Job on the caller's stack
// (job.h), published in one of kSlots slots; workers (workers.cpp) join published calls while
// the busy count (busy.h) is below the budget. The caller always works on its own call, so a call
// completes even when every worker is busy elsewhere: no caller ever waits for another caller's
// call, and no lock is held while a task runs. Calls from inside a task run inline.
//
// Slot protocol (the job lives on the caller's stack, so a worker must never touch it after the
// caller returned):
//   worker:  refs.fetch_add(1); job = slot.job.load(); ... use job ...; refs.fetch_sub(1)
//   caller:  slot.job.store(nullptr); wait until refs == 0; return
// All seq_cst: a worker that saw the job holds a reference the caller's wait sees, and a worker
// that increments after the caller's store sees nullptr (or the next caller's job).
#include "core/pool.h"

#include <pthread.h>

#include <cxxabi.h>

#include <time.h>

#include <atomic>
#include <limits>
#include <new>
#include <type_traits>

#include "base/fp_mode.h"
#include "core/busy.h"
#include "core/cache_line.h"
#include "core/counters.h"
#include "core/futex.h"
#include "core/job.h"
#include "core/pool_internal.h"
#include "core/prediction.h"
#include "core/size.h"
#include "core/team.h"
#include "core/tls.h"
#include "core/workers.h"
#include "diag/log.h"

namespace poolshim::core {
namespace {

constexpr size_t kSlots = 64;        // calls that can be shared at once (one mask word)
constexpr size_t kInlineLanes = 16;  // lanes kept on the caller's stack; more live in the slot
// Lane lengths are int64_t: a range above this is run as consecutive windows.
constexpr size_t kMaxWindow = size_t{1} << 62;

static_assert(std::is_trivially_destructible<Lane>::value,
              "lanes in raw storage are never destroyed");

struct alignas(64) Slot {
  std::atomic<Job*> job{nullptr};    // written by the owning caller; read by workers
  std::atomic<uint32_t> refs{0};     // workers looking at or working on job
  std::atomic<uint32_t> waiting{0};  // 1 while the owner sleeps on refs
  // Advanced by the owner when it publishes a call (odd: open) and when it withdraws it (even): a
  // worker waiting out a patient call (below) reads it before it takes a reference, to know
  // whether a call is open, and whether the one it saw open is the one still open.
  std::atomic<uint32_t> ticket{0};
  // The published call's lanes and the surface's context, stored with its job: a joining worker
  // fetches the lines it is about to touch from here before it takes its reference (join()).
  // Hints only: the job is read again after the reference.
  std::atomic<Lane*> lane_hint{nullptr};
  std::atomic<void*> ctx_hint{nullptr};
  // Lanes for calls wider than kInlineLanes, kept from call to call (the owner's alone: every
  // worker has left the previous call when the next owner takes the slot); grown, never shrunk.
  Lane* lanes = nullptr;
  size_t capacity = 0;
};
static_assert(sizeof(Slot) == 64, "a slot is one cache line");

// The slot's lanes for a call of n > kInlineLanes lanes, or nullptr when they cannot be had
// (no memory: the call runs with kInlineLanes lanes on the stack instead).
Lane* slot_lanes(Slot& slot, size_t n) {
  if (n > slot.capacity) {
    size_t cap = (n + 15) & ~size_t{15};
    Lane* fresh = new (std::nothrow) Lane[cap];
    if (fresh == nullptr) return nullptr;
    delete[] slot.lanes;
    slot.lanes = fresh;
    slot.capacity = cap;
  }
  return slot.lanes;
}

Slot g_slots[kSlots];

// Patience (docs/scheduler.md, "Patience"). A worker that joins a call costs its caller: every
// line the worker reads on its way in (the slot, the job, the busy count, its lane) is one the
// caller writes again before the call ends, so each is a miss for the caller, and the caller
// then waits for the worker to leave. For a call its caller finishes before a worker could have
// helped, that is all cost: a 64-item empty call takes 472-498 ns on its caller alone and
// 974-1189 ns when a spinning worker joins it (docs/bench.md). So each slot remembers how many
// of its last calls were the same work (fn, work, range, width) and were short: they ran on
// their caller alone, woke no sleeper, took under kShortTicks while the prediction was being
// made, and no worker that held back from them found them still open when its patience ran
// out. From the kPatientAfter-th such call on, a call of that work is published patient, and
// quietly: its slot's ticket made odd and its bit in g_patient set (and left set), no g_open, no
// epoch bump, no wake-up. A spinning worker reads g_patient and the tickets only every few
// microseconds (kPatientLookNs, pool_internal.h: each look makes the caller's next write to the
// ticket line a miss), and again kPatienceNs after a look that saw a call open for the first
// time; it joins a call it finds open that long. A call predicted short that is not waits that
// much longer for its first worker (up to kPatientLookNs + kPatienceNs), once (the worker finds
// it still open, so its successor is not patient). Only an awake worker sees a patient call:
// with every worker asleep the call is published loud (publish()), a worker does not sleep
// while one is open that it could join (workers.cpp), and a call whose runs stall is
// republished loud (watch()), so patience never holds an item back for more than about
// kPatientLookNs + kPatienceNs (5 us) of an awake worker's time. A work whose short calls are
// joined every time is tried patient now and then, and kept patient when its caller alone was
// faster (joins that do not pay). The bookkeeping is prediction.h's.
long now_ns();
inline uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  return static_cast<uint64_t>(now_ns());
#endif
}

Prediction g_prediction[kSlots];  // the owner's: written and read by whoever owns the slot
// Bit i set: slot i is owned by a caller. Callers set/clear their own bit (acq_rel CAS).
OnLine<uint64_t> g_owned{0};
// Bit i set: slot i's call may still take a worker. Set by the owner after publishing, cleared
// by it before it detaches. Workers read it to find calls without scanning every slot.
OnLine<uint64_t> g_open{0};
// Bit i set: slot i's calls are published patient (quietly, above), and its ticket says whether
// one is open. Set by the slot's first patient call and left set (cleared by its next loud one),
// so that a run of patient calls writes it once; read by spinning workers every few microseconds
// (look_at_patient_calls()) and by a worker about to sleep (patient_call_open()).
OnLine<uint64_t> g_patient{0};
// Lanes that workers gave back to the budget (Job::free_lanes) in calls still open, summed over
// the calls: when > 0, a caller that leaves wakes a worker to take one up. Relaxed: a hint.
OnLine<long> g_lanes_given_back{0};

// How wide a call may be is the size policy's (size.h); the scheduler only asks.
using size_policy::budget_in_force;
using size_policy::call_width;

// Per-thread state. t_task_depth > 0 while the thread runs items (nested calls go inline); set
// once per run of items, not per item.
POOLSHIM_FAST_TLS thread_local unsigned t_task_depth = 0;
POOLSHIM_FAST_TLS thread_local bool t_in_call = false;  // a top-level caller, for fork
// The slot a worker holds a reference on (kSlots = none): a fork() from inside a worker's task
// must leave that reference counted in the child, or the worker's release would underflow it.
POOLSHIM_FAST_TLS thread_local size_t t_ref_slot = kSlots;
// The slot this thread owns as a caller (kSlots = none): a fork() from inside its own call's task
// must leave that slot owned in the child, or the child's next caller would take it too.
POOLSHIM_FAST_TLS thread_local size_t t_owned_slot = kSlots;
// Per slot, the lane this worker ran in the slot's last call it joined (0 = none): it asks for
// that lane first when it joins the slot's next call (affinity).
POOLSHIM_FAST_TLS thread_local uint16_t t_last_lane[kSlots];
// Items this thread has run as a participant: a caller compares it around its call (patience).
POOLSHIM_FAST_TLS thread_local size_t t_ran = 0;
// Per slot, the patient call (its ticket) this worker has seen, and when it first saw it (the
// clock's low 32 bits: initial-exec TLS is scarce in a library that is dlopen()ed, and the
// patience is far below 4 s). Bit s of t_patient_tried: this worker tried to join that call and
// found nothing to take (it does not look at it again, as a worker does not join a loud call
// again before the epoch moves). t_patient_sum: the tickets of the patient slots, summed at the
// last look: when it moved, their owners are making calls (activity: the worker spins on).
POOLSHIM_FAST_TLS thread_local uint32_t t_patient_ticket[kSlots];
POOLSHIM_FAST_TLS thread_local uint32_t t_patient_since[kSlots];
POOLSHIM_FAST_TLS thread_local uint64_t t_patient_tried = 0;
POOLSHIM_FAST_TLS thread_local uint32_t t_patient_sum = 0;

// Flush-to-zero + denormals-are-zero for a worker's share of a call that asks for it (the
// caller's own thread is handled by the surface, which also covers the serial path).
struct Denormals : base::DenormalsFlushed {
  explicit Denormals(uint32_t flags) : DenormalsFlushed((flags & kFlagDisableDenormals) != 0) {}
};

struct TaskScope {  // marks the thread as inside a task, also across an unwinding task
  TaskScope() { ++t_task_depth; }
  ~TaskScope() { --t_task_depth; }
};

// A participant that finds nothing to claim watches the runs in progress for this long without
// progress before it takes their unstarted items: long enough that a run of short items finishes
// untouched (a steal costs a process-wide barrier, microseconds), short enough that a blocked or
// long item never keeps the items behind it waiting for long.
constexpr long kStallNs = 50 * 1000;

long now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

#if POOLSHIM_COUNTERS
// Affinity (counters.h): which thread ran each of the first kHist items of the slot's call, and
// of its previous call; the caller compares them after the call when the two calls are the same
// (function, range, lanes).
constexpr size_t kHist = 1024;
struct History {
  RangeFn fn = nullptr;
  size_t range = 0, lanes = 0;
  uint32_t cur[kHist], prev[kHist];
  uint32_t lane_cur[kHist], lane_prev[kHist];  // the thread that owned lane i (0: nobody)
};
History g_history[kSlots];

void record_items(const Job& job, size_t begin, size_t end) {
  if (job.offset != 0) return;
  uint32_t id = counters::thread_id();
  History& h = g_history[job.slot];
  for (size_t i = begin; i < end && i < kHist; ++i) h.cur[i] = id;
}

void record_lane(const Job& job, size_t lane) {
  if (job.offset == 0 && lane < kHist) g_history[job.slot].lane_cur[lane] = counters::thread_id();
}

void compare_history(const Job& job, size_t range) {
  if (job.offset != 0) return;
  History& h = g_history[job.slot];
  size_t n = range < kHist ? range : kHist;
  size_t lanes = job.lanes < kHist ? job.lanes : kHist;
  if (h.fn == job.fn && h.range == range && h.lanes == job.lanes) {
    uint64_t same = 0, owned = 0, lane_same = 0;
    for (size_t i = 0; i < n; ++i) same += h.cur[i] == h.prev[i] ? 1 : 0;
    POOLSHIM_COUNT(kAffinityItems, n);
    POOLSHIM_COUNT(kAffinitySame, same);
    for (size_t i = 0; i < lanes; ++i) {
      if (h.lane_cur[i] == 0 || h.lane_prev[i] == 0) continue;  // not joined in one of them
      ++owned;
      lane_same += h.lane_cur[i] == h.lane_prev[i] ? 1 : 0;
    }
    POOLSHIM_COUNT(kLaneAffinityLanes, owned);
    POOLSHIM_COUNT(kLaneAffinitySame, lane_same);
  }
  for (size_t i = 0; i < lanes; ++i) {
    h.lane_prev[i] = h.lane_cur[i];
    h.lane_cur[i] = 0;
  }
  for (size_t i = 0; i < n; ++i) h.prev[i] = h.cur[i];
  h.fn = job.fn;
  h.range = range;
  h.lanes = job.lanes;
}
#endif

// Runs [begin, end) (indices with the job's offset) as participant me's run: the surface takes
// item by item, and whatever it has not started yet another participant may steal. An exception
// leaves the run open: the call is cancelled (nobody steals or claims any more), or, for a
// forced unwind on a worker, the other participants take the items it will never start.
// Returns how many items this participant ran (a thief may have taken the rest).
inline size_t run_opened(Job& job, size_t me, size_t begin) {
  Run& run = job.lane[me].run;
  job.fn(job.ctx, me, begin, run);
  run.close();
  POOLSHIM_COUNTERS_ONLY(record_items(job, run.begin(), run.closed_end()));
  const size_t ran = run.closed_end() - run.begin();
  t_ran += ran;
  return ran;
}

inline size_t execute(Job& job, size_t me, size_t begin, size_t end) {
  job.lane[me].run.open(begin, end, job.fence);
  return run_opened(job, me, begin);
}

// Items a participant ran, added to the job's count once (one RMW) when it runs out of claims.
inline void add_done(Job& job, size_t* mine) {
  if (*mine == 0) return;
  POOLSHIM_COUNT_SHARED();
  job.done.fetch_add(*mine, std::memory_order_acq_rel);
  *mine = 0;
}

inline bool all_done(const Job& job) {
  return job.done.load(std::memory_order_acquire) == job.range;
}

void record_failure(Job& job) {
  job.cancelled.store(true, std::memory_order_relaxed);
  bool expected = false;
  POOLSHIM_COUNT_SHARED();
  if (job.has_error.compare_exchange_strong(expected, true, std::memory_order_acq_rel))
    job.error = std::current_exception();
}

enum class Share { done, left };  // left: a worker gave its lane back to the budget

inline bool cancelled(const Job& job) { return job.cancelled.load(std::memory_order_relaxed); }

// Claims from a lane on behalf of participant me, announced in me's run (run.h, claiming()).
template <size_t (*Claim)(Job&, Lane&, size_t*)>
inline size_t claim_for(Job& job, size_t me, Lane& from, size_t* begin) {
  Run& run = job.lane[me].run;
  run.claiming();
  size_t got = Claim(job, from, begin);
  if (got == 0) run.unclaimed();  // else open() clears it
  return got;
}

// The lane k places after lane me, wrapping (me, k < lanes): (me + k) % lanes without a 64-bit
// division (tens of cycles) per victim.
inline size_t lane_after(size_t me, size_t k, size_t lanes) {
  const size_t j = me + k;
  return j >= lanes ? j - lanes : j;
}

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

// How often a watcher reads the open runs' progress.
constexpr long kLookNs = 2 * 1000;

void withdraw(Job& job);
void republish(Job& job);

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

// The caller, after withdraw(): no worker can join any more, and every worker that did has left
// (its slot reference is gone: seq_cst, after its last item). Nothing was left to claim when the
// call was withdrawn and the caller's own runs are closed, so every item has run, unless a
// worker's task ended its thread with items in its run (job.lost). One line to poll (the slot's)
// instead of the done count and then the references.
inline bool left_alone(const Job& job) {
  return g_slots[job.slot].refs.load(std::memory_order_seq_cst) == 0 &&
         !job.lost.load(std::memory_order_relaxed);
}

// Nothing was left to claim: stays while some run holds items nobody has started, and takes them
// from a run that has made no progress for kStallNs (its current item blocks or runs long).
// Returns when every item of the call has run (job.done: one line, read in O(1)), every other run
// is closed, or every item of the call has been started by someone (or the call is cancelled).
// While every lane is drained the lanes are first left alone for kLookNs, in which the common end
// of a call (the last runs finish) is seen on the done count alone; only a call whose last items
// take longer is scanned lane by lane. Between looks a watcher backs off, from a few pauses (a
// call whose last items end now returns at once) to about a microsecond. The caller withdraws
// its call on the way in and then waits on the slot's references instead of the done count
// (left_alone()).
Share watch(Job& job, size_t me, bool worker, size_t mine) {
  // The caller comes here after it found every lane empty (its own, then each other one in
  // turn; lengths only go down): a worker joining now could claim nothing, so the call is
  // unpublished now, while the last runs finish, instead of after them.
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
  add_done(job, &mine);
  size_t tracked = kNone, tracked_started = 0;  // the run being watched, and its progress
  long since = 0, next_look = 0, quiet_until = 0;
  // A worker in a patient call (one_run()): every item is in the caller's run, so it looks at
  // once and takes half of what the caller has not started, without waiting for a stall: the call
  // was predicted short and is not (or the caller's item blocks), and its patience was the wait.
  const bool eager = worker && job.one_run;
  if (eager) quiet_until = 1;  // no quiet period: its first look is now
  unsigned pause = 4;
  // A scan found no lane with an item to claim: as good as all_claimed() (lengths only go
  // down), also before every owner has counted its lane drained. The caller knows it already.
  bool none_unclaimed = !worker;
  while (!cancelled(job)) {
    if (!worker && job.withdrawn) {
      // The slot's line changes only when a worker joins or leaves (never while it runs items):
      // polled without backing off, as detach() does, the caller sees the last worker leave at
      // once (a backoff of up to 256 pauses would add microseconds to every call's end).
      for (int i = 0; i < 16; ++i, cpu_relax())
        if (left_alone(job)) return Share::done;
    } else if (all_done(job)) {
      return Share::done;
    }
    const long now = now_ns();
    if (quiet_until == 0) {
      quiet_until = now + kLookNs;
      // The first look at the runs' progress lines waits as long: reading them now would only
      // turn the owners' next take() into misses, and no run stalls that soon (kStallNs).
      next_look = quiet_until;
    }
    if (now < quiet_until && (none_unclaimed || all_claimed(job))) {  // O(1): the last runs end
      if (worker && busy::over_budget()) return Share::left;
      if (!worker && job.withdrawn) continue;  // polled above
      for (unsigned i = 0; i < pause; ++i) cpu_relax();
      if (pause < 256) pause *= 2;
      continue;
    }
    uint32_t seq = job.steals.load(std::memory_order_acquire);
    const bool look = now >= next_look;
    Scan sc = scan(job, me, look);
    if (sc.unclaimed == kNone) none_unclaimed = true;
    if (sc.unclaimed != kNone) {  // a lane another participant left (the budget, an unwind)
      size_t begin, got;
      while (!cancelled(job) &&
             (got = claim_for<claim_back>(job, me, job.lane[sc.unclaimed], &begin)) != 0)
        mine += execute(job, me, job.offset + begin, job.offset + begin + got);
      add_done(job, &mine);
      continue;
    }
    const bool quiet =
        !sc.pending && (seq & 1) == 0 && job.steals.load(std::memory_order_acquire) == seq;
    if (quiet && !sc.open) return Share::done;  // every other run is closed
    if (look) {
      next_look = now + kLookNs;
      if (sc.unstarted == kNone) {
        if (quiet) return Share::done;  // open runs, but every item in them has started
      } else if (eager) {
        if (steal_into(job, me, sc.unstarted, true, &mine)) {
          next_look = 0;
          continue;
        }
      } else if (sc.unstarted != tracked ||
                 job.lane[sc.unstarted].run.started() != tracked_started) {
        tracked = sc.unstarted;  // a new run to watch, or it moved on: start the clock again
        tracked_started = job.lane[tracked].run.started();
        since = now;
      } else if (now - since > kStallNs) {
        // A run has stalled (an item blocks, perhaps on another item of this call): the call is
        // offered to joiners again, so that a worker can come and take the items nobody has
        // started, also from the run the caller is about to steal (if it blocks in turn).
        if (!worker) republish(job);
        steal_into(job, me, tracked, false, &mine);
        tracked = kNone;
        next_look = 0;
        continue;
      }
    }
    if (worker && busy::over_budget()) return Share::left;
    for (unsigned i = 0; i < pause; ++i) cpu_relax();
    if (pause < 256) pause *= 2;
  }
  return Share::done;
}

inline bool has_free_lane(const Job& job);

// A participant's share: its own lane from the front, then the others' from the back (until
// every lane is drained), then the runs still in progress (watch). A worker stops between runs
// when more threads are busy than the budget allows. What it ran is added to the job's done
// count on the way out, whichever way it leaves (a forced unwind adds nothing: its run's items
// are then taken by the others, and the watchers fall back to reading the lanes).
Share participate(Job& job, size_t me, bool worker) {
  TaskScope scope;
  size_t begin, got, mine = 0;
  Lane& own = job.lane[me];
  // The caller of a patient call: every item in one run (one_run()); a worker that joins takes
  // half of what it has not started (watch()).
  if (!worker && job.one_run) {
    mine = execute(job, me, job.offset, job.offset + job.range);
    return watch(job, me, worker, mine);
  }
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
    mine += execute(job, me, job.offset + begin, job.offset + begin + got);
    if (worker && busy::over_budget()) return add_done(job, &mine), Share::left;
  }
  // The caller of a quiet call (patience) leaves its lane uncounted, one RMW less: no worker is
  // inside it before its patience ran out, and the count only ever spares a participant a read
  // of the lanes (one that joins late reads them instead).
  if (!cancelled(job) && (worker || !job.quiet)) tell_drained(job, own);
  for (size_t k = 1; k < job.lanes && !all_claimed(job); ++k) {
    Lane& victim = job.lane[lane_after(me, k, job.lanes)];
    while (!cancelled(job) && (got = claim_for<claim_back>(job, me, victim, &begin)) != 0) {
      mine += execute(job, me, job.offset + begin, job.offset + begin + got);
      if (worker && busy::over_budget()) return add_done(job, &mine), Share::left;
    }
  }
  return watch(job, me, worker, mine);
}

// A worker that leaves a call for the budget gives its lane back, so a worker can take the call
// up again when the budget has room (lanes below 64; wider calls only shrink).
void give_back_lane(Job& job, size_t lane) {
  if (lane >= 64) return;
  POOLSHIM_COUNT_SHARED();
  POOLSHIM_COUNT_SHARED();
  g_lanes_given_back.fetch_add(1, std::memory_order_relaxed);
  job.free_lanes.fetch_or(uint64_t{1} << lane, std::memory_order_release);
}

// A call that ends with lanes still given back: nobody will take them now.
void forget_given_back(const Job& job) {
  uint64_t f = job.free_lanes.load(std::memory_order_relaxed);
  if (f == 0) return;
  POOLSHIM_COUNT_SHARED();
  g_lanes_given_back.fetch_sub(__builtin_popcountll(f), std::memory_order_relaxed);
}

inline bool win_lane(Lane& l) {
  if (l.taken.load(std::memory_order_relaxed) != 0) return false;
  POOLSHIM_COUNT_LANE();
  return l.taken.exchange(1, std::memory_order_acq_rel) == 0;
}

// A lane for a joining worker: `preferred` (the lane it ran in the slot's previous call, so that
// lane i of identical calls stays on one thread and its data in that thread's cache), else the
// first never-taken one, else one a worker gave back. One RMW on the lane's own line in the
// common case; the job's hint is raised with a plain store.
size_t take_lane(Job& job, size_t preferred) {
  if (preferred != 0 && preferred < job.lanes && win_lane(job.lane[preferred])) return preferred;
  size_t i = job.next_lane.load(std::memory_order_relaxed);
  for (; i < job.lanes; ++i) {
    if (win_lane(job.lane[i])) {
      if (job.next_lane.load(std::memory_order_relaxed) < i + 1)
        job.next_lane.store(i + 1, std::memory_order_relaxed);  // every lane below is taken
      return i;
    }
  }
  if (job.next_lane.load(std::memory_order_relaxed) < job.lanes)
    job.next_lane.store(job.lanes, std::memory_order_relaxed);
  uint64_t f = job.free_lanes.load(std::memory_order_acquire);
  while (f != 0) {
    size_t lane = static_cast<size_t>(__builtin_ctzll(f));
    POOLSHIM_COUNT_SHARED();
    if (job.free_lanes.compare_exchange_weak(f, f & ~(uint64_t{1} << lane),
                                             std::memory_order_acq_rel)) {
      POOLSHIM_COUNT_SHARED();
      g_lanes_given_back.fetch_sub(1, std::memory_order_relaxed);
      return lane;
    }
  }
  return job.lanes;
}

inline bool has_free_lane(const Job& job) {
  return job.next_lane.load(std::memory_order_relaxed) < job.lanes ||
         job.free_lanes.load(std::memory_order_relaxed) != 0;
}

// no_sanitize("null"): glibc's forced unwind carries no C++ object, so the documented
// `catch (abi::__forced_unwind&)` binds a null reference, which UBSan reports and aborts on
// (noinline: inlined into help_one_call, the attribute would not apply).
__attribute__((noinline, no_sanitize("null"))) void worker_share(Job& job, size_t lane) {
  try {
    Denormals d(job.flags);
    if (participate(job, lane, true) == Share::left) give_back_lane(job, lane);
  } catch (abi::__forced_unwind&) {
    // pthread_exit() or cancellation inside a task on a worker: it must not be swallowed (glibc
    // aborts if it is). The call goes on: the items this worker had claimed but not started stay
    // in its run, where the other participants take them (watch). The unwind ends this worker;
    // the scopes in help_one_call() give back its slot reference and busy count on the way out,
    // and workers.cpp forgets the thread. Its lane is not given back: its run keeps the items.
    job.lost.store(true, std::memory_order_relaxed);  // before the reference goes (seq_cst)
    diag::log_once(diag::LogSite::task_ended_worker, diag::LogLevel::warn,
                   "a task ended its pool thread (pthread_exit or cancellation); the call's "
                   "other items run on the remaining threads");
    throw;
  } catch (...) {
    record_failure(job);
  }
}

// Owner side of the slot protocol, first half: stop new workers (the ones inside go on). Done
// by detach() at the latest, and earlier by the caller's watch() once nothing is left to claim.
// A lane given back after that (a worker leaving for the budget) is not taken up by another
// worker: the participants still in the call, the caller at least, claim its items.
void withdraw(Job& job) {
  if (job.withdrawn) return;
  job.withdrawn = true;
  const size_t s = job.slot;
  if (!job.quiet) {
    POOLSHIM_COUNT_SHARED();
    g_open.fetch_and(~(uint64_t{1} << s), std::memory_order_seq_cst);
  }
  g_slots[s].ticket.store(job.ticket + 1, std::memory_order_relaxed);  // even: closed
  POOLSHIM_COUNT_SHARED();  // a seq_cst store is a locked exchange on x86
  g_slots[s].job.store(nullptr, std::memory_order_seq_cst);
}

// Owner side: makes the call visible to workers (its slot's job, its bit in g_open), and wakes at
// most one sleeper. Spinning workers see the epoch; of the sleepers this caller wakes one, when
// the budget has room for it, and each worker that joins wakes the next (the cascade,
// help_one_call()). patient: published quietly instead (patience, above) while a worker is awake
// to see it: the slot's ticket made odd, its bit in g_patient set (and left set for the slot's
// next patient calls: a line that does not change costs no miss). Sets job.quiet (how it was
// published) and job.woke (it woke a sleeper).
void publish(Job& job, bool patient) {
  Slot& slot = g_slots[job.slot];
  const uint64_t bit = uint64_t{1} << job.slot;
  const bool marked = (g_patient.load(std::memory_order_relaxed) & bit) != 0;
  job.ticket = slot.ticket.load(std::memory_order_relaxed) + 1;  // odd: open
  slot.lane_hint.store(job.lane, std::memory_order_relaxed);
  slot.ctx_hint.store(job.ctx, std::memory_order_relaxed);
  slot.job.store(&job, std::memory_order_release);
  if (patient) {
    if (!marked) {
      POOLSHIM_COUNT_SHARED();
      g_patient.fetch_or(bit, std::memory_order_seq_cst);
    }
    // The ticket, then the sleepers (both seq_cst), against a worker's "counted as a sleeper,
    // then the patient calls' tickets" before it sleeps (workers.cpp): either this caller sees
    // that worker awake, or the worker sees the call open and does not sleep.
    POOLSHIM_COUNT_SHARED();  // a seq_cst store is a locked exchange on x86
    slot.ticket.store(job.ticket, std::memory_order_seq_cst);
    if (workers::awake()) {
      job.quiet = true;
      POOLSHIM_COUNT(kPatientCalls, 1);
      return;
    }
    // Every worker asleep: published loud (the one woken joins at once; the bit can stay).
  } else {
    slot.ticket.store(job.ticket, std::memory_order_relaxed);
    if (marked) {  // this slot's calls are no longer patient: workers need not look at it
      POOLSHIM_COUNT_SHARED();
      g_patient.fetch_and(~bit, std::memory_order_relaxed);
    }
  }
  job.quiet = false;
  POOLSHIM_COUNT_SHARED();
  g_open.fetch_or(bit, std::memory_order_seq_cst);
  if (workers::wake_one(busy::room(), true)) job.woke = true;
}

// The caller's watch() withdrew the call and then found a run that makes no progress: publishes
// it again, loud (detach() withdraws it for good).
void republish(Job& job) {
  if (!job.withdrawn) return;
  job.withdrawn = false;
  job.next_lane.store(1, std::memory_order_relaxed);  // take_lane() skips the lanes taken
  publish(job, false);
}

// Owner side of the slot protocol: stop new workers, wait for those inside to leave.
void detach(Job& job) {
  withdraw(job);
  Slot& slot = g_slots[job.slot];
  // Spin by time, as the workers do (a pause is 10 ns on one CPU and 150 ns on the next).
  long deadline = 0;
  for (unsigned spin = 0; slot.refs.load(std::memory_order_seq_cst) != 0; ++spin) {
    if ((spin & 63) != 0 || deadline == 0 || now_ns() < deadline) {
      if (deadline == 0) deadline = now_ns() + workers::kSpinNs;
      cpu_relax();
      continue;
    }
    POOLSHIM_COUNT_SHARED();
    slot.waiting.store(1, std::memory_order_seq_cst);
    uint32_t r = slot.refs.load(std::memory_order_seq_cst);
    if (r != 0) futex_wait(&slot.refs, r);
    slot.waiting.store(0, std::memory_order_relaxed);
  }
}

// In a forked child: the slot whose call (the parent's) the forking worker still works on, or
// kSlots. It stays owned until that worker's reference goes, so that no caller of the child takes
// it meanwhile: that caller's detach() would wait for the forking worker, which may itself be
// waiting for that caller.
OnLine<size_t> g_orphan_slot{kSlots};

void release_orphan_slot(size_t s) {
  size_t want = s;
  if (g_orphan_slot.compare_exchange_strong(want, kSlots, std::memory_order_relaxed))
    g_owned.fetch_and(~(uint64_t{1} << s), std::memory_order_release);
}

void slot_leave(Slot& slot) {
  POOLSHIM_COUNT_SHARED();
  if (slot.refs.fetch_sub(1, std::memory_order_seq_cst) == 1) {
    if (slot.waiting.load(std::memory_order_seq_cst) != 0) futex_wake(&slot.refs, 1);
    if (__builtin_expect(g_orphan_slot.load(std::memory_order_relaxed) != kSlots, 0))
      release_orphan_slot(static_cast<size_t>(&slot - g_slots));
  }
}

size_t acquire_slot() {
  uint64_t owned = g_owned.load(std::memory_order_relaxed);
  while (~owned != 0) {
    size_t s = static_cast<size_t>(__builtin_ctzll(~owned));
    POOLSHIM_COUNT_SHARED();
    if (g_owned.compare_exchange_weak(owned, owned | (uint64_t{1} << s),
                                      std::memory_order_acq_rel)) {
      t_owned_slot = s;
      return s;
    }
  }
  return kSlots;  // every slot busy: the caller runs its call alone
}

void release_slot(size_t s) {
  t_owned_slot = kSlots;
  POOLSHIM_COUNT_SHARED();
  g_owned.fetch_and(~(uint64_t{1} << s), std::memory_order_release);
}

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

// A short patient call's lanes before it is published (patience, above; docs/scheduler.md, "One
// run for a patient call"; prediction.h, kOneRunTicks): its caller runs every item as one run,
// without a claim, a steal or a drained count (each a locked RMW: 8 ns apiece on some hosts, the
// most of a patient call's cost). Every lane is left empty and counted drained, so that a worker
// that joins (its patience ran out, or it was woken because every worker slept) finds nothing to
// claim and no lane to scan, and takes the unstarted half of the caller's run at once instead
// (watch()). The lanes are as constructed (no item, split() is not called); plain stores: no worker
// can see the job before publish() stores it (release).
void one_run(Job& job) {
  for (size_t i = 0; i < job.lanes; ++i) job.lane[i].drained_told = true;
  job.drained.store(job.lanes, std::memory_order_relaxed);
  job.one_run = true;
  POOLSHIM_COUNT(kOneRunCalls, 1);
}

void run_window(size_t range, RangeFn fn, void* ctx, size_t lanes, uint32_t flags, size_t offset,
                Work work) {
  size_t s = acquire_slot();
  if (s == kSlots) return run_serial(range, fn, ctx, offset);
  struct SlotOwner {  // releases the slot on every path, also when a task throws
    size_t s;
    ~SlotOwner() { release_slot(s); }
  } owner{s};

  // Only the lanes the call uses are constructed (a Lane is a cache line: no need to touch 16).
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
  POOLSHIM_COUNTERS_ONLY(record_lane(job, 0));
  job.fence = !heavy_barrier_ready();

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
  const uint64_t started_at = timed ? ticks() : 0;

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
  const uint64_t elapsed = timed ? ticks() - started_at : 0;
  learn(last, t_ran - ran_before == range,
        !job.woke && !job.outlived_patience.load(std::memory_order_relaxed), probe, timed, elapsed);
  POOLSHIM_COUNTERS_ONLY(compare_history(job, range));
  if (job.has_error.load(std::memory_order_acquire)) std::rethrow_exception(job.error);
}

}  // namespace

namespace {

// A worker's reference on a slot, given back on every path (also when a forced unwind ends the
// thread).
struct SlotRef {
  Slot& slot;
  explicit SlotRef(Slot& s, size_t index) : slot(s) {
    POOLSHIM_COUNT_SHARED();
    slot.refs.fetch_add(1, std::memory_order_seq_cst);
    t_ref_slot = index;
  }
  ~SlotRef() {
    t_ref_slot = kSlots;
    slot_leave(slot);
  }
};

// The lines a join touches after its reference, each one the caller wrote last (so each is a
// miss, 80-100 ns where the hand-off is slow), fetched at once instead of one after the other:
// the job's two lines, the lane the worker will ask for (its claim line and its run's line), the
// busy count and the surface's context. From the slot's line, which the reference needs anyway.
// Measured (docs/bench.md, "A joined call's misses"): the worker's first item starts 150-200 ns
// sooner. The write hints compile to read prefetches on plain x86-64 (PREFETCHW is an extension);
// issuing PREFETCHW instead measured the same.
inline void prefetch_join(const Slot& slot, size_t preferred) {
  const char* job = reinterpret_cast<const char*>(slot.job.load(std::memory_order_relaxed));
  if (job == nullptr) return;
  __builtin_prefetch(job);          // read: fn, ctx, lanes, flags
  __builtin_prefetch(job + 64, 1);  // written: the claim counters, drained, done
  busy::prefetch_count();
  if (const char* ctx = static_cast<const char*>(slot.ctx_hint.load(std::memory_order_relaxed))) {
    __builtin_prefetch(ctx);
    __builtin_prefetch(ctx + 64);
  }
  // The lane it prefers (affinity), else lane 1; within the lanes on the stack, so that the
  // address stays inside the array (a wider call's lane is fetched when taken).
  if (const Lane* lanes = slot.lane_hint.load(std::memory_order_relaxed)) {
    const size_t i = preferred != 0 && preferred < kInlineLanes ? preferred : 1;
    const char* lane = reinterpret_cast<const char*>(lanes + i);
    __builtin_prefetch(lane, 1);
    __builtin_prefetch(lane + 64, 1);
  }
}

// A worker joins slot s's call if it has a free lane and the budget room. ticket: the call's
// ticket as seen by a worker that waited out its patience (kNoTicket: joined at once). Returns
// helped (or helped_yield), over_budget, or nothing (no call there, or nothing left to join).
constexpr uint64_t kNoTicket = ~uint64_t{0};
Help join(size_t s, uint64_t ticket) {
  struct BusyWorker {
    ~BusyWorker() { busy::worker_leave(); }
  };
  prefetch_join(g_slots[s], t_last_lane[s]);
  SlotRef ref(g_slots[s], s);
  Job* job = ref.slot.job.load(std::memory_order_seq_cst);
  // Still open after this worker's patience (the same ticket: the same call): the call is not
  // one its caller finishes before a worker could help, whether or not this one gets an item.
  if (ticket != kNoTicket && job != nullptr &&
      ref.slot.ticket.load(std::memory_order_relaxed) == ticket)
    job->outlived_patience.store(true, std::memory_order_relaxed);
  // A call whose items have all run (the caller ran the last ones before it withdrew the call)
  // is left at once: the done count is on the line has_free_lane() reads anyway.
  if (job == nullptr || all_done(*job) || !has_free_lane(*job) ||
      job->cancelled.load(std::memory_order_relaxed))
    return Help::nothing;
  if (!busy::worker_try_enter()) return Help::over_budget;  // the budget's threads are all busy
  BusyWorker counted;
  size_t lane = take_lane(*job, t_last_lane[s]);
  if (lane >= job->lanes) return Help::nothing;
  t_last_lane[s] = static_cast<uint16_t>(lane < 65536 ? lane : 0);
  POOLSHIM_COUNTERS_ONLY(record_lane(*job, lane));
  POOLSHIM_COUNT(kJoins, 1);
  workers::settle_wake();  // this worker's wake-up (if it was woken) has joined
  const bool yield = (job->flags & kFlagYieldWorkers) != 0;  // read while the job is warm
  team::note_pool_call(true);
  worker_share(*job, lane);
  team::note_pool_call(false);
  return yield ? Help::helped_yield : Help::helped;
}

}  // namespace

Help help_one_call() {
  uint64_t open = g_open.load(std::memory_order_acquire);
  while (open != 0) {
    size_t s = static_cast<size_t>(__builtin_ctzll(open));
    open &= open - 1;
    Help h = join(s, kNoTicket);
    if (h != Help::nothing) return h;
  }
  // No call it could join. When the budget's threads are all busy it could not join the next
  // one either: sleep at once (a caller that leaves wakes one) instead of spinning on a CPU
  // the busy threads need.
  return busy::has_room() ? Help::nothing : Help::over_budget;
}

// A patient call open in slot s (its ticket odd) that this worker has not tried already.
inline bool untried(size_t s, uint32_t ticket) {
  return (ticket & 1) != 0 &&
         (t_patient_ticket[s] != ticket || (t_patient_tried & (uint64_t{1} << s)) == 0);
}

bool patient_call_open() {
  for (uint64_t m = g_patient.load(std::memory_order_seq_cst); m != 0; m &= m - 1) {
    const size_t s = static_cast<size_t>(__builtin_ctzll(m));
    if (untried(s, g_slots[s].ticket.load(std::memory_order_seq_cst))) return true;
  }
  return false;
}

PatientLook look_at_patient_calls(long now_clock) {
  PatientLook look;
  const uint32_t now = static_cast<uint32_t>(now_clock);
  uint32_t sum = 0;
  for (uint64_t m = g_patient.load(std::memory_order_acquire); m != 0; m &= m - 1) {
    const size_t s = static_cast<size_t>(__builtin_ctzll(m));
    // Nothing of the call but this line is read until this worker has seen it open for
    // kPatienceNs (by its ticket: the same call). Acquire: the caller stored the job before the
    // ticket (publish()), so a join after this sees that job, not an older one.
    const uint32_t ticket = g_slots[s].ticket.load(std::memory_order_acquire);
    sum += ticket;
    if (!untried(s, ticket)) continue;  // no call open in the slot, or tried already
    look.active = true;
    if (t_patient_ticket[s] != ticket) {
      t_patient_ticket[s] = ticket;
      t_patient_since[s] = now;
      t_patient_tried &= ~(uint64_t{1} << s);
      look.fresh = true;
    } else if (now - t_patient_since[s] >= static_cast<uint32_t>(kPatienceNs)) {
      look.due = true;
      look.slot = s;
      look.ticket = ticket;
      return look;
    }
  }
  if (sum != t_patient_sum) {
    t_patient_sum = sum;
    look.active = true;
  }
  return look;
}

Help join_patient_call(const PatientLook& look) {
  if (!look.due) return Help::nothing;
  Help h = join(look.slot, look.ticket);
  if (h == Help::nothing) t_patient_tried |= uint64_t{1} << look.slot;
  return h;
}

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
        for (size_t i = begin; r.take(i); ++i) x->fn(x->ctx, t, i);
      },
      &p, max_threads, flags, work != 0 ? work : work_of(fn, ctx));
}

bool started() { return workers::count() > 0; }

bool in_task() { return t_task_depth > 0; }

const char* degraded_reason() { return workers::failure(); }

size_t workers_started() { return workers::count(); }
size_t workers_wanted() { return workers::wanted(); }

void pool_atfork_prepare() { workers::atfork_prepare(); }
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
//    that slot stays owned until the reference goes (g_orphan_slot), since nobody in the child
//    owns that call.
// Its call then ends in the child like any other: the forking thread finishes its task and every
// item nobody had claimed; items other threads of the parent had claimed are not run in the
// child, and nothing waits for them (refs count only the forking thread's own reference).
void pool_atfork_child() {
  workers::atfork_child();
  // Linux 6.18 keeps the membarrier registration across fork (measured); asking again in the
  // child's first call costs two system calls and holds on any kernel that does not.
  heavy_barrier_atfork_child();
  for (size_t i = 0; i < kSlots; ++i) {
    g_slots[i].job.store(nullptr, std::memory_order_relaxed);
    g_slots[i].refs.store(t_ref_slot == i ? 1 : 0, std::memory_order_relaxed);
    g_slots[i].waiting.store(0, std::memory_order_relaxed);
    g_slots[i].ticket.store(0, std::memory_order_relaxed);  // closed
  }
  uint64_t owned = t_owned_slot < kSlots ? uint64_t{1} << t_owned_slot : 0;
  if (t_ref_slot < kSlots) owned |= uint64_t{1} << t_ref_slot;  // released by slot_leave()
  g_owned.store(owned, std::memory_order_relaxed);
  g_orphan_slot.store(t_ref_slot, std::memory_order_relaxed);
  g_open.store(0, std::memory_order_relaxed);
  g_patient.store(0, std::memory_order_relaxed);
  g_lanes_given_back.store(0, std::memory_order_relaxed);  // the parent's calls are gone
  bool holds_share = t_in_call || t_task_depth > 0;
  busy::reset_after_fork(holds_share ? 1 : 0);
}

}  // namespace poolshim::core
