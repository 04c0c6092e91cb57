// Publishing a call to the workers, and withdrawing it: the owner's side of the slot protocol
// (slots.h).
//
// Patience (docs/scheduler.md, "Patience"). A worker that joins a call costs its caller: every
// line the worker reads on its way in (the slot, the job, the busy count, its lane) is one the
// caller writes again before the call ends, so each is a miss for the caller, and the caller then
// waits for the worker to leave. For a call its caller finishes before a worker could have
// helped, that is all cost. So each slot remembers how many of its last calls were the same work
// (fn, work, range, width) and were short (prediction.h): they ran on their caller alone, woke no
// sleeper, took under kShortTicks while the prediction was being made, and no worker that held
// back from them found them still open when its patience ran out. From the kPatientAfter-th such
// call on, a call of that work is published patient, and quietly: its slot's ticket made odd and
// its bit in g_patient set (and left set), no g_open, no epoch bump, no wake-up. A spinning worker
// reads g_patient and the tickets only every kPatientLookNs (pool_internal.h: each look makes the
// caller's next write to the ticket line a miss), and again kPatienceNs after a look that saw a
// call open for the first time; it joins a call it finds open that long (patience.cpp). A call
// predicted short that is not waits that much longer for its first worker (up to
// kPatientLookNs + kPatienceNs), once (the worker finds it still open, so its successor is not
// patient). Only an awake worker sees a patient call: with every worker asleep the call is
// published loud (publish()), a worker does not sleep while one is open that it could join
// (workers.cpp), and a call whose runs stall is republished loud (participate.cpp), so patience
// never holds an item back for more than about kPatientLookNs + kPatienceNs of an awake worker's
// time. A work whose short calls are joined every time is tried patient now and then, and kept
// patient when its caller alone was faster (joins that do not pay).
#pragma once
#include <atomic>

#include "core/counters.h"
#include "core/job.h"
#include "core/slots.h"

namespace poolshim::core {
#pragma GCC visibility push(hidden)

// Makes the call visible to workers (its slot's job, its bit in g_open), and wakes at most one
// sleeper. Spinning workers see the epoch; of the sleepers this caller wakes one, when the budget
// has room for it, and each worker that joins wakes the next (the cascade, participate.cpp).
// patient: published quietly instead (above) while a worker is awake to see it: the slot's ticket
// made odd, its bit in g_patient set (and left set for the slot's next patient calls: a line that
// does not change costs no miss). Sets job.quiet (how it was published) and job.woke (it woke a
// sleeper).
void publish(Job& job, bool patient);

// First half of the owner's side: stop new workers (the ones inside go on). Done by detach() at
// the latest, and earlier by the caller's watch (participate.cpp) once nothing is left to claim.
// A lane given back after that (a worker leaving for the budget) is not taken up by another
// worker: the participants still in the call, the caller at least, claim its items.
inline void withdraw(Job& job) {
  if (job.withdrawn) return;
  job.withdrawn = true;
  const size_t s = job.slot;
  if (!job.quiet) {
    POOLSHIM_COUNT_SHARED();
    g_open.fetch_and(~(uint64_t{1} << s), std::memory_order_seq_cst);
  }
  g_slots[s].ticket.store(job.ticket + 1, std::memory_order_relaxed);  // even: closed
  POOLSHIM_COUNT_SHARED();  // a seq_cst store is a locked exchange on x86
  g_slots[s].job.store(nullptr, std::memory_order_seq_cst);
}

// The caller's watch withdrew the call and then found a run that makes no progress: publishes it
// again, loud (detach() withdraws it for good).
inline void republish(Job& job) {
  if (!job.withdrawn) return;
  job.withdrawn = false;
  job.next_lane.store(1, std::memory_order_relaxed);  // take_lane() skips the lanes taken
  publish(job, false);
}

// The caller, after withdraw(): no worker can join any more, and every worker that did has left
// (its slot reference is gone: seq_cst, after its last item). Nothing was left to claim when the
// call was withdrawn and the caller's own runs are closed, so every item has run, unless a
// worker's task ended its thread with items in its run (job.lost). One line to poll (the slot's)
// instead of the done count and then the references.
inline bool left_alone(const Job& job) {
  return g_slots[job.slot].refs.load(std::memory_order_seq_cst) == 0 &&
         !job.lost.load(std::memory_order_relaxed);
}

// The owner's side: stop new workers, wait for those inside to leave (core/wait.h's policy).
void detach(Job& job);

#pragma GCC visibility pop
}  // namespace poolshim::core
