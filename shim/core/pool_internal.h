// Between the scheduler (pool.cpp) and its worker threads (workers.cpp). Not for abi/.
#pragma once

namespace poolshim::core {

// A worker looks for a published call with a free lane and budget to join it, and runs its share.
enum class Help {
  helped,        // it ran a share of a call: look again at once
  helped_yield,  // the same, and the call asked its workers to sleep right after it
  nothing,       // no call with a free lane: spin briefly, then sleep
  young,         // a patient call is open that this worker joins soon (pool.cpp): look again
  over_budget,   // calls are open but the budget's threads are all busy: sleep at once (a caller
                 // that leaves wakes a worker); spinning would take a CPU from the busy threads
};
Help help_one_call();

}  // namespace poolshim::core
