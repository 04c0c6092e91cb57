// Scheduler counters (the POOLSHIM_COUNTERS build option; docs/scheduler.md, "Counters"): what a
// call costs in shared cache-line traffic, wake-ups and thread-to-range affinity, counted rather
// than timed, so that a 2-core machine can check what a 64-core one would pay. Off (the macros
// expand to nothing, zero cost) unless the build defines POOLSHIM_COUNTERS=1: CMake turns it on in
// the RelWithDebInfo and Debug test builds and off in Release.
//
// Read with poolshim_debug_counters() (the C entry point below, exported in every build; it
// returns -1 when the counters are compiled out). The counts are process-wide totals since the
// start or the last reset; a test divides them by `calls` or `joins`.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifndef POOLSHIM_COUNTERS
#define POOLSHIM_COUNTERS 0
#endif

extern "C" {
// One field per counter, in this order (a test may index them as uint64_t[]). "shared" lines are
// the process-wide ones: globals (slot masks, busy count, wake epoch and sleepers, the lanes
// given back), the call slot (refs) and the job's header (lane hand-out, given-back lanes, steal
// sequence, done count, cancel/error flags). Lane lines (a lane's claim counters and its run) are
// counted apart: each is shared by its owner and the thieves only.
struct poolshim_sched_counters {
  uint64_t calls;                // top-level calls that published a job (run_window)
  uint64_t joins;                // workers that took a lane of a call
  uint64_t caller_shared_rmw;    // RMWs on shared lines by callers (per call: / calls)
  uint64_t worker_shared_rmw;    // RMWs on shared lines by workers (per join: / joins)
  uint64_t caller_lane_rmw;      // RMWs on lane lines by callers (claims, steals)
  uint64_t worker_lane_rmw;      // RMWs on lane lines by workers
  uint64_t futex_wakes;          // futex_wake system calls on the wake epoch
  uint64_t threads_woken;        // threads those calls woke (the kernel's count)
  uint64_t woken;                // workers back from a futex sleep on the epoch
  uint64_t woken_no_room;        // ... that then found no budget room to join anything
  uint64_t woken_no_lane;        // ... that found room but no call with a free lane
  uint64_t affinity_items;       // items of calls identical to the slot's previous call
  uint64_t affinity_same;        // ... run by the thread that ran that item in the previous call
  uint64_t max_wakes_in_flight;  // the most wake-ups in flight at once (woken, not yet joined)
  uint64_t lane_affinity_lanes;  // lanes of calls identical to the slot's previous call
  uint64_t lane_affinity_same;   // ... owned by the thread that owned that lane in that call
  uint64_t patient_calls;        // calls published patient (publish.h, "Patience")
  uint64_t one_run_calls;        // calls run as one run on their caller (pool.cpp, one_run())
  uint64_t docked_seats;         // gang seats a start gave a docked worker (gang_seats.h)
};

// Copies the counters into *out (when out is not NULL), then zeroes them when reset != 0.
// Returns 0, or -1 when the library was built without POOLSHIM_COUNTERS (out is then zeroed).
int poolshim_debug_counters(struct poolshim_sched_counters* out, int reset);
}

namespace poolshim::core::counters {

enum Counter : int {
  kCalls,
  kJoins,
  kCallerShared,
  kWorkerShared,
  kCallerLane,
  kWorkerLane,
  kFutexWakes,
  kThreadsWoken,
  kWoken,
  kWokenNoRoom,
  kWokenNoLane,
  kAffinityItems,
  kAffinitySame,
  kMaxInFlight,  // a maximum, not a sum
  kLaneAffinityLanes,
  kLaneAffinitySame,
  kPatientCalls,
  kOneRunCalls,
  kDockedSeats,
  kCount
};

#if POOLSHIM_COUNTERS
void add(Counter c, uint64_t n);
void raise_to(Counter c, uint64_t v);  // c = max(c, v)
// A shared-line RMW (kind: kCallerShared or kCallerLane), attributed to the calling thread's
// role: workers (worker_main sets it) count as workers, every other thread as a caller.
void rmw(Counter caller_kind);
void set_worker_thread();
// A small number naming the calling thread (affinity: "the same thread"), never 0.
uint32_t thread_id();
void snapshot(poolshim_sched_counters* out, bool reset);
#define POOLSHIM_COUNT(c, n) ::poolshim::core::counters::add(::poolshim::core::counters::c, (n))
#define POOLSHIM_COUNT_SHARED() \
  ::poolshim::core::counters::rmw(::poolshim::core::counters::kCallerShared)
#define POOLSHIM_COUNT_LANE() \
  ::poolshim::core::counters::rmw(::poolshim::core::counters::kCallerLane)
#define POOLSHIM_COUNTERS_ONLY(...) __VA_ARGS__
#else
#define POOLSHIM_COUNT(c, n) ((void)0)
#define POOLSHIM_COUNT_SHARED() ((void)0)
#define POOLSHIM_COUNT_LANE() ((void)0)
#define POOLSHIM_COUNTERS_ONLY(...)
#endif

}  // namespace poolshim::core::counters
