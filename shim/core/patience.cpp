// The worker's side of patient calls (pool_internal.h; publish.h says how they are published):
// which ones it has seen open, since when, and which it tried.
#include <atomic>
#include <cstdint>

#include "core/join.h"
#include "core/pool_internal.h"
#include "core/slots.h"
#include "core/tls.h"

namespace poolshim::core {
namespace {

// Per slot, the patient call (its ticket) this worker has seen, and when it first saw it (the
// clock's low 32 bits: initial-exec TLS is scarce in a library that is dlopen()ed, and the
// patience is far below 4 s). Bit s of t_patient_tried: this worker tried to join that call and
// found nothing to take (it does not look at it again, as a worker does not join a loud call
// again before the epoch moves). t_patient_sum: the tickets of the patient slots, summed at the
// last look: when it moved, their owners are making calls (activity: the worker spins on).
POOLSHIM_FAST_TLS thread_local uint32_t t_patient_ticket[kSlots];
POOLSHIM_FAST_TLS thread_local uint32_t t_patient_since[kSlots];
POOLSHIM_FAST_TLS thread_local uint64_t t_patient_tried = 0;
POOLSHIM_FAST_TLS thread_local uint32_t t_patient_sum = 0;

// A patient call open in slot s (its ticket odd) that this worker has not tried already.
inline bool untried(size_t s, uint32_t ticket) {
  return (ticket & 1) != 0 &&
         (t_patient_ticket[s] != ticket || (t_patient_tried & (uint64_t{1} << s)) == 0);
}

}  // namespace

bool patient_call_open() {
  for (uint64_t m = g_patient.load(std::memory_order_seq_cst); m != 0; m &= m - 1) {
    const size_t s = static_cast<size_t>(__builtin_ctzll(m));
    if (untried(s, g_slots[s].ticket.load(std::memory_order_seq_cst))) return true;
  }
  return false;
}

PatientLook look_at_patient_calls(long now_clock) {
  PatientLook look;
  const uint32_t now = static_cast<uint32_t>(now_clock);
  uint32_t sum = 0;
  for (uint64_t m = g_patient.load(std::memory_order_acquire); m != 0; m &= m - 1) {
    const size_t s = static_cast<size_t>(__builtin_ctzll(m));
    // Nothing of the call but this line is read until this worker has seen it open for
    // kPatienceNs (by its ticket: the same call). Acquire: the caller stored the job before the
    // ticket (publish()), so a join after this sees that job, not an older one.
    const uint32_t ticket = g_slots[s].ticket.load(std::memory_order_acquire);
    sum += ticket;
    if (!untried(s, ticket)) continue;  // no call open in the slot, or tried already
    look.active = true;
    if (t_patient_ticket[s] != ticket) {
      t_patient_ticket[s] = ticket;
      t_patient_since[s] = now;
      t_patient_tried &= ~(uint64_t{1} << s);
      look.fresh = true;
    } else if (now - t_patient_since[s] >= static_cast<uint32_t>(kPatienceNs)) {
      look.due = true;
      look.slot = s;
      look.ticket = ticket;
      return look;
    }
  }
  if (sum != t_patient_sum) {
    t_patient_sum = sum;
    look.active = true;
  }
  return look;
}

Help join_patient_call(const PatientLook& look) {
  if (!look.due) return Help::nothing;
  Help h = join(look.slot, look.ticket);
  if (h == Help::nothing) t_patient_tried |= uint64_t{1} << look.slot;
  return h;
}

}  // namespace poolshim::core
