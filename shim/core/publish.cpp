// Publishing and detaching a call (publish.h).
#include "core/publish.h"

#include "core/busy.h"
#include "core/wait.h"
#include "core/workers.h"

namespace poolshim::core {

void publish(Job& job, bool patient) {
  Slot& slot = g_slots[job.slot];
  const uint64_t bit = uint64_t{1} << job.slot;
  const bool marked = (g_patient.load(std::memory_order_relaxed) & bit) != 0;
  job.ticket = slot.ticket.load(std::memory_order_relaxed) + 1;  // odd: open
  POOLSHIM_ASSERT((job.ticket & 1) != 0);  // the slot was closed (even) before this call
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

void detach(Job& job) {
  withdraw(job);
  Slot& slot = g_slots[job.slot];
  wait::await(slot.refs, wait::SleepFlag<uint32_t>{slot.waiting}, wait::kSpinNs,
              [](uint32_t refs) { return refs == 0; });
}

}  // namespace poolshim::core
