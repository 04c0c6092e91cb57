// Affinity as the counters see it (counters.h; test builds with POOLSHIM_COUNTERS only): which
// thread ran each of the first kHist items of a slot's call, and of its previous call, and which
// thread owned each lane; the caller compares them after a call identical to the previous one
// (function, range, lanes). Nothing of it exists in a build without the counters.
#pragma once
#include <cstddef>

#include "core/counters.h"

#if POOLSHIM_COUNTERS
namespace poolshim::core {
struct Job;
namespace history {
#pragma GCC visibility push(hidden)

// Items [begin, end) of the job's call ran on the calling thread.
void record_items(const Job& job, size_t begin, size_t end);
// The calling thread owns this lane of the job's call.
void record_lane(const Job& job, size_t lane);
// The caller, after its call: counts how many items and lanes stayed on the same thread as in the
// slot's previous identical call (kAffinity*, kLaneAffinity* counters), then keeps this call's.
void compare(const Job& job, size_t range);

#pragma GCC visibility pop
}  // namespace history
}  // namespace poolshim::core
#endif
