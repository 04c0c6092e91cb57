// The one wait policy of the shim's threads: spin by time, then sleep on a futex.
//
// Why by time, not by count: a pause costs 10 ns on one CPU and 140 ns on the next, so a count of
// pauses is a different wait on every machine. The clock is read every kClockPauses pauses
// (a vDSO call costs 15-25 ns: reading it on every pause would be most of the spin).
//
// Sleeping without a lost wake-up, between a waiter and a waker of one futex word:
//   waiter: sleepers.raise() (seq_cst); re-read the word (seq_cst); futex_wait if unchanged
//   waker:  change the word (seq_cst); read the sleepers (seq_cst); futex_wake if raised
// Either the waker sees the waiter raised and wakes it, or the waiter's re-read sees the change and
// does not sleep. `sleepers` is a flag (one waiter: SleepFlag) or a count (many: SleepCount).
#pragma once
#include <atomic>
#include <cstdint>

#include "base/clock.h"
#include "core/counters.h"
#include "core/futex.h"

namespace poolshim::core::wait {

using base::now_ns;

// How long an idle thread spins before it sleeps (workers, gang threads, a caller waiting for the
// workers inside its call): a call that follows within it costs no system call on either side.
constexpr long kSpinNs = 50 * 1000;
// Pauses between two clock reads while spinning.
constexpr unsigned kClockPauses = 64;

// Spins until ready() or until about spin_ns have passed; returns whether ready() held. The first
// clock read comes after kClockPauses pauses (the deadline counts from there): a wait that ends
// within them, the common case of a caller waiting for its last worker, reads no clock at all.
template <typename Ready>
inline bool spin_for(long spin_ns, Ready ready) {
  long deadline = 0;
  for (unsigned i = 1;; ++i) {
    if (ready()) return true;
    cpu_relax();
    if (i % kClockPauses != 0) continue;
    const long now = now_ns();
    if (deadline == 0)
      deadline = now + spin_ns;
    else if (now >= deadline)
      return false;
  }
}

// One waiter raises a flag while it sleeps.
template <typename T>
struct SleepFlag {
  std::atomic<T>& flag;
  void raise() const {
    POOLSHIM_COUNT_SHARED();  // a seq_cst store is a locked exchange on x86
    flag.store(1, std::memory_order_seq_cst);
  }
  void lower() const { flag.store(0, std::memory_order_relaxed); }
};
// Many waiters count themselves while they sleep.
struct SleepCount {
  std::atomic<uint32_t>& count;
  void raise() const {
    POOLSHIM_COUNT_SHARED();
    count.fetch_add(1, std::memory_order_seq_cst);
  }
  void lower() const {
    POOLSHIM_COUNT_SHARED();
    count.fetch_sub(1, std::memory_order_relaxed);
  }
};

// One sleep on `word` while it holds `seen`, counted in `sleepers` meanwhile. stay_awake() is
// asked after the raise (seq_cst), for a waiter with a second reason to stay awake that its waker
// publishes as "its word, then the sleepers" (the patient calls, pool_internal.h). on_woken() runs
// when the futex returned 0 (woken, or spuriously), before the waiter stops counting as a sleeper.
// Returns whether it did.
template <typename Sleepers, typename StayAwake, typename OnWoken>
inline bool sleep_on(std::atomic<uint32_t>& word, uint32_t seen, const Sleepers& sleepers,
                     StayAwake stay_awake, OnWoken on_woken) {
  sleepers.raise();
  bool woken = false;
  if (!stay_awake() && word.load(std::memory_order_seq_cst) == seen &&
      futex_wait(&word, seen) == 0) {
    woken = true;
    on_woken();
  }
  sleepers.lower();
  return woken;
}
template <typename Sleepers>
inline bool sleep_on(std::atomic<uint32_t>& word, uint32_t seen, const Sleepers& sleepers) {
  return sleep_on(
      word, seen, sleepers, [] { return false; }, [] {});
}

// Waits until done(word's value): spins for spin_ns, then sleeps on the word until it holds.
template <typename Sleepers, typename Done>
inline void await(std::atomic<uint32_t>& word, const Sleepers& sleepers, long spin_ns, Done done) {
  if (spin_for(spin_ns, [&] { return done(word.load(std::memory_order_seq_cst)); })) return;
  for (;;) {
    const uint32_t v = word.load(std::memory_order_seq_cst);
    if (done(v)) return;
    sleep_on(word, v, sleepers);
  }
}

}  // namespace poolshim::core::wait
