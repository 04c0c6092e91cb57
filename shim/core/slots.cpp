// The slot table (slots.h): its storage, the lanes of wide calls, references and the orphan slot
// of a forked child.
#include "core/slots.h"

#include <new>

#include "base/fork_hooks.h"
#include "core/futex.h"

namespace poolshim::core {

Slot g_slots[kSlots];
OnLine<uint64_t> g_owned{0};
OnLine<uint64_t> g_open{0};
OnLine<uint64_t> g_patient{0};
__thread size_t t_ref_slot POOLSHIM_FAST_TLS = kSlots;
__thread size_t t_owned_slot POOLSHIM_FAST_TLS = kSlots;

namespace {

// In a forked child: the slot whose call (the parent's) the forking worker still works on, or
// kSlots. It stays owned until that worker's reference goes, so that no caller of the child takes
// it meanwhile: that caller's detach() would wait for the forking worker, which may itself be
// waiting for that caller.
OnLine<size_t> g_orphan_slot{kSlots};

void release_orphan_slot(size_t s) {
  size_t want = s;
  if (g_orphan_slot.compare_exchange_strong(want, kSlots, std::memory_order_relaxed))
    g_owned.fetch_and(~(uint64_t{1} << s), std::memory_order_release);
}

}  // namespace

Lane* slot_lanes(Slot& slot, size_t n) {
  if (n > slot.capacity) {
    size_t cap = (n + 15) & ~size_t{15};
    Lane* fresh = new (std::nothrow) Lane[cap];
    if (fresh == nullptr) return nullptr;
    delete[] slot.lanes;
    slot.lanes = fresh;
    slot.capacity = cap;
  }
  return slot.lanes;
}

void slot_leave(Slot& slot) {
  POOLSHIM_COUNT_SHARED();
  const uint32_t before = slot.refs.fetch_sub(1, std::memory_order_seq_cst);
  POOLSHIM_ASSERT(before != 0);  // a reference given back was taken
  if (before == 1) {
    if (slot.waiting.load(std::memory_order_seq_cst) != 0) futex_wake(&slot.refs, 1);
    if (__builtin_expect(g_orphan_slot.load(std::memory_order_relaxed) != kSlots, 0))
      release_orphan_slot(static_cast<size_t>(&slot - g_slots));
  }
}

void slots_atfork_prepare() {
  for (const Slot& s : g_slots) base::map_for_children(s.job, s.refs, s.waiting, s.ticket);
  base::map_for_children(g_owned, g_orphan_slot, g_open, g_patient);
}

void slots_atfork_child() {
  for (size_t i = 0; i < kSlots; ++i) {
    base::reset_if_set(g_slots[i].job, nullptr);
    base::reset_if_set(g_slots[i].refs, t_ref_slot == i ? 1 : 0);
    base::reset_if_set(g_slots[i].waiting, 0);
    base::reset_if_set(g_slots[i].ticket, 0);  // closed
  }
  uint64_t owned = t_owned_slot < kSlots ? uint64_t{1} << t_owned_slot : 0;
  if (t_ref_slot < kSlots) owned |= uint64_t{1} << t_ref_slot;  // released by slot_leave()
  base::reset_if_set(g_owned, owned);
  base::reset_if_set(g_orphan_slot, t_ref_slot);
  base::reset_if_set(g_open, 0);
  base::reset_if_set(g_patient, 0);
}

}  // namespace poolshim::core
