// One top-level parallel call as the scheduler sees it: a Job on the caller's stack, split into
// lanes. Lane i's items start as a contiguous block; whoever owns lane i (the caller owns lane 0,
// each joining worker claims the next free lane) takes items from the front of its block, and
// any participant whose own block is empty steals from the back of the others'. The lane number
// is the participant's thread index, so indices are exclusive within a call and below its width.
//
// Claiming (per lane): `length` counts the items not yet claimed. Owner and thieves both claim
// by fetch_sub on length, and take min(previous, asked) items when previous > 0: so the total
// claimed never exceeds the block, the owner's items come from the front (its private cursor)
// and thieves' from the back (fetch_sub on `back`), and the two ends never cross. A claim is one
// atomic RMW for a run of items; runs shrink as the block empties (guided), so the last items
// are handed out one by one and the load stays balanced.
//
// Progress: a claimed run is not a promise to run it. Participant i runs every claimed run as
// lane[i].run (run.h), whose unstarted items another participant can still take; so while one
// item blocks, every item nobody has started can be run by someone else (docs/scheduler.md).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>

#include "core/counters.h"
#include "core/pool.h"
#include "core/run.h"

namespace poolshim::core {

struct alignas(64) Lane {
  std::atomic<int64_t> length{0};  // unclaimed items; may go negative (then empty)
  std::atomic<size_t> back{0};     // one past the last unclaimed item; thieves fetch_sub
  size_t front = 0;                // next item of the owner; written by the owner only
  bool drained_told = false;       // owner only: this lane was counted in Job::drained
  std::atomic<uint32_t> taken{0};  // 1 once a participant owns the lane (lane 0: the caller)
  // The run participant i is working on (its own claims and what it stole): a line with its end
  // and flags (written once per run, read by watchers), then a line with its per-item progress
  // (written by the owner per item, read by watchers only every few microseconds; run.h).
  Run run;
};
static_assert(sizeof(Lane) == 192, "a lane is three cache lines");

struct Job {
  RangeFn fn = nullptr;
  void* ctx = nullptr;
  size_t offset = 0;  // added to every index (windows of very large ranges)
  uint32_t flags = 0;
  size_t lanes = 0;  // participants at most; lane numbers are thread indices
  Lane* lane = nullptr;
  size_t slot = 0;   // the call slot it is published in
  size_t range = 0;  // items in the call (this window)
  // Set by the first participant whose task threw; participants stop claiming. The first
  // exception thrown on a worker is kept in `error` (written once, by whoever wins has_error),
  // and read by the caller after every participant has left.
  std::atomic<bool> cancelled{false};
  std::atomic<bool> has_error{false};
  // A worker's task ended its thread (forced unwind): its run keeps items nobody ran, so the
  // caller cannot take "every worker has left" for "every item has run" (participate.cpp, the
  // Watcher).
  std::atomic<bool> lost{false};
  std::exception_ptr error;
  // Owners fence each take() (no process-wide barrier available); fixed for the call.
  bool fence = true;
  // The caller's: the call is no longer offered to joiners (unpublished, publish.h, withdraw()).
  bool withdrawn = false;
  // The caller's: published patient, in g_patient instead of g_open (publish.h, "Patience").
  bool quiet = false;
  // A short patient call (pool.cpp, one_run()): the caller runs every item as one run, with no
  // claim, and a worker that joins it (its patience ran out, or it was woken) takes the unstarted
  // half of that run at once instead of waiting for a stall. Set before the call is published.
  bool one_run = false;
  uint32_t ticket = 0;  // the caller's: the slot's ticket while the call is published (odd)
  // The caller's: its publish woke a sleeping worker (the call then says nothing of patience).
  bool woke = false;

  // The claim counters, on a line of their own: the fields above are read by every participant
  // on every run, these are written by each joiner (a read-mostly field next to them would make
  // every join a miss for everyone).
  // Every lane below it is taken (a hint, raised by joiners with plain stores; lane 0 is the
  // caller's). A joiner first tries the lane it ran in the slot's previous call (affinity), then
  // the first lane from here whose `taken` it wins.
  alignas(64) std::atomic<size_t> next_lane{1};
  // Bit i: lane i was given back by a worker that left for the budget (its run is closed); a
  // joining worker takes it over, so a long call regains the threads it lost.
  std::atomic<uint64_t> free_lanes{0};
  // Steals from runs in progress (odd while one is): items then sit with no run for a moment,
  // so a participant deciding that nothing is left unstarted reads it before and after its scan.
  std::atomic<uint32_t> steals{0};
  // The end-of-call check in O(1) (docs/scheduler.md, "Cost model"): lanes whose owner found
  // them empty (each lane counted once, by its owner: one RMW per participant), and items
  // finished (each participant adds what it ran when it runs out of claims, one RMW). done ==
  // range: every item has run, nothing is left to watch. drained == lanes: no lane holds an
  // unclaimed item, so a participant need not read the lanes to look for one.
  std::atomic<size_t> drained{0};
  std::atomic<size_t> done{0};
  // A worker that held back from this patient call (publish.h, "Patience") found it still open
  // when its patience ran out: the call is not short, and its successor is not patient.
  std::atomic<bool> outlived_patience{false};
};

// Initial split of [0, range) into job.lanes blocks, sizes differing by at most one.
inline void split(Job& job, size_t range) {
  const size_t base = range / job.lanes, extra = range % job.lanes;
  size_t start = 0;
  for (size_t i = 0; i < job.lanes; ++i) {
    size_t n = base + (i < extra ? 1 : 0);
    job.lane[i].front = start;
    job.lane[i].back.store(start + n, std::memory_order_relaxed);
    job.lane[i].length.store(static_cast<int64_t>(n), std::memory_order_relaxed);
    start += n;
  }
}

// Takes up to (unclaimed >> shift) + 1 items of a lane's count; returns how many it got (0 = the
// lane is empty). The caller then takes them from its end of the lane.
inline size_t claim(Job& job, Lane& l, int shift) {
  int64_t hint = l.length.load(std::memory_order_relaxed);
  if (hint <= 0) return 0;
  int64_t ask = (hint >> shift) + 1;
  POOLSHIM_COUNT_LANE();
  int64_t prev = l.length.fetch_sub(ask, std::memory_order_acq_rel);
  if (prev <= 0) return 0;
  return static_cast<size_t>(prev < ask ? prev : ask);
}

// The owner of lane l found nothing left to claim in it: counts it drained, once.
inline void tell_drained(Job& job, Lane& l) {
  if (l.drained_told || l.length.load(std::memory_order_relaxed) > 0) return;
  l.drained_told = true;
  POOLSHIM_COUNT_SHARED();
  job.drained.fetch_add(1, std::memory_order_release);
}

inline bool all_claimed(const Job& job) {
  return job.drained.load(std::memory_order_acquire) == job.lanes;
}

// The owner's run: a quarter of what is left, from the front (its private cursor).
inline size_t claim_front(Job& job, Lane& l, size_t* begin) {
  size_t got = claim(job, l, 2);
  *begin = l.front;
  l.front += got;
  return got;
}

// A thief's run: half of what is left in another lane, from the back.
inline size_t claim_back(Job& job, Lane& l, size_t* begin) {
  size_t got = claim(job, l, 1);
  if (got != 0) {
    POOLSHIM_COUNT_LANE();
    *begin = l.back.fetch_sub(got, std::memory_order_acq_rel) - got;
  }
  return got;
}

}  // namespace poolshim::core
