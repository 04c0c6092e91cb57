// The pool's call slots (the scheduler's table of published calls; docs/scheduler.md).
//
// A top-level call owns one of kSlots slots while it runs (a bit of g_owned: one caller per slot),
// and publishes its Job there, on its own stack. Slot protocol (the job lives on the caller's
// stack, so a worker must never touch it after the caller returned):
//   worker:  refs.fetch_add(1); job = slot.job.load(); ... use job ...; refs.fetch_sub(1)
//   caller:  slot.job.store(nullptr); wait until refs == 0; return
// All seq_cst: a worker that saw the job holds a reference the caller's wait sees, and a worker
// that increments after the caller's store sees nullptr (or the next caller's job).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "base/assert.h"
#include "core/cache_line.h"
#include "core/counters.h"
#include "core/job.h"
#include "core/tls.h"
#include "base/fork_hooks.h"

namespace poolshim::core {
#pragma GCC visibility push(hidden)

constexpr size_t kSlots = 64;        // calls that can be shared at once (one mask word)
constexpr size_t kInlineLanes = 16;  // lanes kept on the caller's stack; more live in the slot

struct alignas(64) Slot {
  std::atomic<Job*> job{nullptr};    // written by the owning caller; read by workers
  std::atomic<uint32_t> refs{0};     // workers looking at or working on job
  std::atomic<uint32_t> waiting{0};  // 1 while the owner sleeps on refs
  // Advanced by the owner when it publishes a call (odd: open) and when it withdraws it (even): a
  // worker waiting out a patient call (publish.h) reads it before it takes a reference, to know
  // whether a call is open, and whether the one it saw open is the one still open.
  std::atomic<uint32_t> ticket{0};
  // The published call's lanes and the surface's context, stored with its job: a joining worker
  // fetches the lines it is about to touch from here before it takes its reference (join.cpp).
  // Hints only: the job is read again after the reference.
  std::atomic<Lane*> lane_hint{nullptr};
  std::atomic<void*> ctx_hint{nullptr};
  // Lanes for calls wider than kInlineLanes, kept from call to call (the owner's alone: every
  // worker has left the previous call when the next owner takes the slot); grown, never shrunk.
  Lane* lanes = nullptr;
  size_t capacity = 0;
};
static_assert(sizeof(Slot) == 64, "a slot is one cache line");

extern Slot g_slots[kSlots];
// Bit i set: slot i is owned by a caller. Callers set/clear their own bit (acq_rel CAS).
extern OnLine<uint64_t> g_owned;
// Bit i set: slot i's call may still take a worker. Set by the owner after publishing, cleared
// by it before it detaches. Workers read it to find calls without scanning every slot.
extern OnLine<uint64_t> g_open;
// Bit i set: slot i's calls are published patient (quietly: publish.h), and its ticket says
// whether one is open. Set by the slot's first patient call and left set (cleared by its next
// loud one), so that a run of patient calls writes it once; read by spinning workers every few
// microseconds and by a worker about to sleep (patience.cpp).
extern OnLine<uint64_t> g_patient;

// The slot a worker holds a reference on (kSlots = none): a fork() from inside a worker's task
// must leave that reference counted in the child, or the worker's release would underflow it.
extern __thread size_t t_ref_slot POOLSHIM_FAST_TLS;
// The slot this thread owns as a caller (kSlots = none): a fork() from inside its own call's task
// must leave that slot owned in the child, or the child's next caller would take it too.
extern __thread size_t t_owned_slot POOLSHIM_FAST_TLS;

// A free slot for the calling thread's call, or kSlots when every slot is busy (the caller then
// runs its call alone).
inline size_t acquire_slot() {
  uint64_t owned = g_owned.load(std::memory_order_relaxed);
  while (~owned != 0) {
    size_t s = static_cast<size_t>(__builtin_ctzll(~owned));
    POOLSHIM_COUNT_SHARED();
    if (g_owned.compare_exchange_weak(owned, owned | (uint64_t{1} << s),
                                      std::memory_order_acq_rel)) {
      t_owned_slot = s;
      return s;
    }
  }
  return kSlots;
}

inline void release_slot(size_t s) {
  POOLSHIM_ASSERT(t_owned_slot == s);
  // Withdrawn before it is released: no worker can take a new reference on this call.
  POOLSHIM_ASSERT(g_slots[s].job.load(std::memory_order_relaxed) == nullptr);
  t_owned_slot = kSlots;
  POOLSHIM_COUNT_SHARED();
  const uint64_t before = g_owned.fetch_and(~(uint64_t{1} << s), std::memory_order_release);
  POOLSHIM_ASSERT((before >> s) & 1);  // owned until now
  (void)before;
}

// The slot's lanes for a call of n > kInlineLanes lanes, or nullptr when they cannot be had
// (no memory: the call runs with kInlineLanes lanes on the stack instead).
Lane* slot_lanes(Slot& slot, size_t n);

// A worker gives its reference back (the last one wakes an owner asleep on refs).
void slot_leave(Slot& slot);

// A worker's reference on a slot, given back on every path (also when a forced unwind ends the
// thread).
struct SlotRef {
  Slot& slot;
  explicit SlotRef(Slot& s, size_t index) : slot(s) {
    POOLSHIM_COUNT_SHARED();
    slot.refs.fetch_add(1, std::memory_order_seq_cst);
    t_ref_slot = index;
  }
  ~SlotRef() {
    t_ref_slot = kSlots;
    slot_leave(slot);
  }
};

// Before a fork (pool.cpp's pool_atfork_prepare): reads what slots_atfork_child will
// (base::map_for_children), so that no child faults in a page of the table the parent never used.
POOLSHIM_FORK_HOOK void slots_atfork_prepare();
// In a forked child (pool.cpp's pool_atfork_child): every slot closed and free, except what the
// forking thread holds (its own slot, its reference), as t_owned_slot and t_ref_slot say.
POOLSHIM_FORK_HOOK void slots_atfork_child();

#pragma GCC visibility pop
}  // namespace poolshim::core
