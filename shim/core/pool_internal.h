// Between the scheduler (join.cpp, patience.cpp) and its worker threads (workers.cpp). Not for
// abi/.
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::core {

// A worker looks for a published call with a free lane and budget to join it, and runs its share.
enum class Help {
  helped,        // it ran a share of a call: look again at once
  helped_yield,  // the same, and the call asked its workers to sleep right after it
  nothing,       // no call with a free lane: spin briefly, then sleep
  over_budget,   // calls are open but the budget's threads are all busy: sleep at once (a caller
                 // that leaves wakes a worker); spinning would take a CPU from the busy threads
};
Help help_one_call();

// Patient calls (publish.h, "Patience") are published quietly, for awake workers only: no epoch
// bump, no g_open bit. A spinning worker looks at them every kPatientLookNs
// (look_at_patient_calls(now): a mask that seldom changes, then one ticket line per patient
// slot), and kPatienceNs after a look that saw one open that it had not seen before (fresh): a
// call it saw open at least kPatienceNs before (the same ticket: the same call) is due, and
// join_patient_call() joins it (helped, helped_yield, over_budget, or nothing when it has gone or
// has nothing to take: the worker then leaves that call alone). active: one is open, or a patient
// slot's ticket moved since the worker's last look (its owner is making calls: the worker spins
// on). patient_call_open(): a patient call is open that this worker has not tried; a worker
// about to sleep asks it after it counted itself a sleeper (seq_cst, against the caller's
// "ticket, then the sleepers"), and does not sleep while it says yes and the budget has room.
constexpr long kPatienceNs = 1000;
constexpr long kPatientLookNs = 4 * 1000;
bool patient_call_open();
struct PatientLook {
  bool due = false, active = false, fresh = false;
  size_t slot = 0;
  uint32_t ticket = 0;
};
PatientLook look_at_patient_calls(long now);
Help join_patient_call(const PatientLook& look);

}  // namespace poolshim::core
