// Running a participant's items: the per-thread task depth, a run opened and run to its end, the
// done count, claims announced in the claimer's run. Inline: every call's caller and every joining
// worker go through these, between the claims of job.h and the runs of run.h.
#pragma once
#include <atomic>
#include <cstddef>

#include "base/assert.h"
#include "base/fp_mode.h"
#include "core/affinity_history.h"
#include "core/counters.h"
#include "core/job.h"
#include "core/tls.h"

namespace poolshim::core {
#pragma GCC visibility push(hidden)

// > 0 while the thread runs items (nested calls go inline); set once per run of items, not per
// item.
extern __thread unsigned t_task_depth POOLSHIM_FAST_TLS;
// Items this thread has run as a participant: a caller compares it around its call (patience).
extern __thread size_t t_ran POOLSHIM_FAST_TLS;

struct TaskScope {  // marks the thread as inside a task, also across an unwinding task
  TaskScope() { ++t_task_depth; }
  ~TaskScope() { --t_task_depth; }
};

// Flush-to-zero + denormals-are-zero for a worker's share of a call that asks for it (the
// caller's own thread is handled by the surface, which also covers the serial path).
struct Denormals : base::DenormalsFlushed {
  explicit Denormals(uint32_t flags) : DenormalsFlushed((flags & kFlagDisableDenormals) != 0) {}
};

// Runs [begin, end) (indices with the job's offset) as participant me's run: the surface takes
// item by item, and whatever it has not started yet another participant may steal. An exception
// leaves the run open: the call is cancelled (nobody steals or claims any more), or, for a
// forced unwind on a worker, the other participants take the items it will never start.
// Returns how many items this participant ran (a thief may have taken the rest).
inline size_t run_opened(Job& job, size_t me, size_t begin) {
  Run& run = job.lane[me].run;
  job.fn(job.ctx, me, begin, run);
  run.close();
  POOLSHIM_COUNTERS_ONLY(history::record_items(job, run.begin(), run.closed_end()));
  const size_t ran = run.closed_end() - run.begin();
  t_ran += ran;
  return ran;
}

inline size_t execute(Job& job, size_t me, size_t begin, size_t end) {
  POOLSHIM_ASSERT(me < job.lanes && begin < end && end <= job.offset + job.range);
  job.lane[me].run.open(begin, end, job.fence);
  return run_opened(job, me, begin);
}

// Items a participant ran, added to the job's count once (one RMW) when it runs out of claims.
inline void add_done(Job& job, size_t* mine) {
  if (*mine == 0) return;
  POOLSHIM_COUNT_SHARED();
  const size_t before = job.done.fetch_add(*mine, std::memory_order_acq_rel);
  POOLSHIM_ASSERT(before + *mine <= job.range);  // no item counted twice
  (void)before;
  *mine = 0;
}

inline bool all_done(const Job& job) {
  return job.done.load(std::memory_order_acquire) == job.range;
}

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

#pragma GCC visibility pop
}  // namespace poolshim::core
