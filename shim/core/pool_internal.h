// Between the scheduler (pool.cpp) and its worker threads (workers.cpp). Not for abi/.
#pragma once

namespace poolshim::core {

// A worker looks for a published call with a free lane and budget to join it; runs its share
// and returns true, or returns false at once when there is nothing it may do.
bool help_one_call();

// Marks the calling thread as a pool worker (for in_task bookkeeping and diagnostics).
void mark_worker_thread();

}  // namespace poolshim::core
