// Handing out a call's lanes to joining workers (a lane number is a thread index of the call), and
// taking lanes back from workers that leave for the budget. Inline: a join takes one lane, a
// caller's share asks has_free_lane() once.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/assert.h"
#include "base/bits.h"
#include "core/cache_line.h"
#include "core/counters.h"
#include "core/job.h"
#include "base/fork_hooks.h"

namespace poolshim::core {
#pragma GCC visibility push(hidden)

// Lanes that workers gave back to the budget (Job::free_lanes) in calls still open, summed over
// the calls: when > 0, a caller that leaves wakes a worker to take one up. Relaxed: a hint.
extern OnLine<long> g_lanes_given_back;

inline bool has_free_lane(const Job& job) {
  return job.next_lane.load(std::memory_order_relaxed) < job.lanes ||
         job.free_lanes.load(std::memory_order_relaxed) != 0;
}

// A worker that leaves a call for the budget gives its lane back, so a worker can take the call
// up again when the budget has room (lanes below 64; wider calls only shrink).
inline void give_back_lane(Job& job, size_t lane) {
  if (lane >= 64) return;
  POOLSHIM_COUNT_SHARED();
  POOLSHIM_COUNT_SHARED();
  g_lanes_given_back.fetch_add(1, std::memory_order_relaxed);
  job.free_lanes.fetch_or(uint64_t{1} << lane, std::memory_order_release);
}

// A call that ends with lanes still given back: nobody will take them now.
inline void forget_given_back(const Job& job) {
  uint64_t f = job.free_lanes.load(std::memory_order_relaxed);
  if (f == 0) return;
  POOLSHIM_COUNT_SHARED();
  g_lanes_given_back.fetch_sub(base::count_bits(f), std::memory_order_relaxed);
}

inline bool win_lane(Lane& l) {
  if (l.taken.load(std::memory_order_relaxed) != 0) return false;
  POOLSHIM_COUNT_LANE();
  return l.taken.exchange(1, std::memory_order_acq_rel) == 0;
}

// A lane given back by a worker (free_lanes), taken over; job.lanes when there is none.
inline size_t take_given_back(Job& job) {
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

// A lane for a joining worker: `preferred` (the lane it ran in the slot's previous call, so that
// lane i of identical calls stays on one thread and its data in that thread's cache), else the
// first never-taken one, else one a worker gave back; job.lanes when none is left. One RMW on the
// lane's own line in the common case; the job's hint is raised with a plain store.
inline size_t take_lane(Job& job, size_t preferred) {
  if (preferred != 0 && preferred < job.lanes && win_lane(job.lane[preferred])) return preferred;
  size_t i = job.next_lane.load(std::memory_order_relaxed);
  for (; i < job.lanes; ++i) {
    if (win_lane(job.lane[i])) {
      POOLSHIM_ASSERT(i != 0);  // lane 0 is the caller's from the start
      if (job.next_lane.load(std::memory_order_relaxed) < i + 1)
        job.next_lane.store(i + 1, std::memory_order_relaxed);  // every lane below is taken
      return i;
    }
  }
  if (job.next_lane.load(std::memory_order_relaxed) < job.lanes)
    job.next_lane.store(job.lanes, std::memory_order_relaxed);
  return take_given_back(job);
}

// In a forked child: the parent's calls are gone, and their given-back lanes with them.
POOLSHIM_FORK_HOOK void lanes_atfork_child();

#pragma GCC visibility pop
}  // namespace poolshim::core
