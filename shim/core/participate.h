// A participant's share of a call: the caller's (lane 0) and each joining worker's.
#pragma once
#include <cstddef>

#include "core/job.h"

namespace poolshim::core {
#pragma GCC visibility push(hidden)

enum class Share { done, left };  // left: a worker gave its lane back to the budget

// Participant me's share: its own lane from the front, then the others' from the back (until
// every lane is drained), then the runs still in progress (watched, participate.cpp). A worker
// stops between runs when more threads are busy than the budget allows. What it ran is added to
// the job's done count on the way out, whichever way it leaves (a forced unwind adds nothing: its
// run's items are then taken by the others, and the watchers fall back to reading the lanes).
// The caller (worker false) withdraws its call once nothing is left to claim.
Share participate(Job& job, size_t me, bool worker);

// The first exception of the call's tasks: kept for the caller to rethrow; the call is cancelled.
void record_failure(Job& job);

#pragma GCC visibility pop
}  // namespace poolshim::core
