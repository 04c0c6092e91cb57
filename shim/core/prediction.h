// What a call slot expects of its next call (patience, docs/scheduler.md "Patience" and "Joins
// that do not pay"): the owner of a slot remembers its last call's work and what the calls of
// that work in a row were like, and learn() turns each finished call into the prediction for the
// next one: publish it loud (a worker may join at once) or patient (quietly, for a worker that
// finds it still open after its patience). Pure bookkeeping on the owner's own data: no atomics,
// no clock (the caller times the call and says what it saw).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/pool.h"

namespace poolshim::core {

// From the kPatientAfter-th short call in a row that ran on its caller alone, the work's calls are
// published patient.
constexpr unsigned kPatientAfter = 2;
// A call counts as short only when it also took fewer than this many time-stamp ticks (5-20 us
// at 1-4 GHz), timed while the prediction is being made. On a CPU without a cheap counter the
// clock is read instead (ticks are then nanoseconds).
constexpr uint64_t kShortTicks = 20000;
// Joins that do not pay: where the hand-off is slow (a worker's way in costs its caller a miss
// per line), a worker that joins a short call can make it slower than its caller alone
// (docs/scheduler.md, "Joins that do not pay"). Such calls never run alone, so the rule above never
// sees them. So after kProbeAfter short calls in a row that a worker joined, the next one is a
// probe: published patient and timed. When it ran alone in fewer ticks than the fastest of those
// joined calls, the work is patient from then on; else the next probe waits twice as many joined
// calls, up to kProbeAfter << kProbeBackoffMax (one call in 512: a wrong probe costs one call run
// alone).
constexpr unsigned kProbeAfter = 8;
constexpr unsigned kProbeBackoffMax = 6;
// A patient call runs as one run on its caller (pool.cpp, one_run(); docs/scheduler.md, "One run
// for a patient call") only when the calls that made it patient took fewer ticks than this (1-1.7
// us at 2.3-4 GHz): a call that short ends before a worker's patience can find it still open, so
// no worker needs the process-wide barrier to share it. A longer patient call keeps its lanes (a
// joining worker claims from them with one RMW): split, it costs its caller more locked RMWs, but
// a wrong prediction costs no barrier.
constexpr uint64_t kOneRunTicks = 4000;

struct Prediction {  // the slot's last call, as its owner saw it
  RangeFn fn = nullptr;
  Work work = 0;
  size_t range = 0, lanes = 0;
  unsigned alone = 0;        // short calls of this work in a row that ran alone (saturates)
  uint64_t alone_ticks = 0;  // the most ticks one of them (or the probe that won) took
  unsigned joined = 0;       // short calls of this work that a worker joined, since the last probe
  uint64_t joined_best = ~uint64_t{0};  // the fewest ticks one of them took
  unsigned backoff = 0;                 // the next probe waits kProbeAfter << backoff of them

  // The next call is a probe: enough joined calls since the last one (a probe resets the count).
  bool probing() const { return joined >= kProbeAfter << backoff; }

  // The next call of this work: patient (published quietly), and timed (ticks read around it).
  bool patient() const { return probing() || alone >= kPatientAfter; }
  // ... and run as one run: calls that ran alone in fewer than kOneRunTicks, or a probe after
  // joined calls that short (it is judged on its caller's time alone).
  bool one_run() const {
    return probing() ? joined_best < kOneRunTicks : patient() && alone_ticks < kOneRunTicks;
  }
  bool timed() const { return alone < kPatientAfter; }
};

// What a finished call of the prediction's work says of the next one. alone: its caller ran
// every item. clean: it woke no sleeper, and no worker that held back from it found it still open
// when its patience ran out. probe: it was published as a probe. timed: it was timed (not yet
// patient), and took `elapsed` ticks.
inline void learn(Prediction& last, bool alone, bool clean, bool probe, bool timed,
                  uint64_t elapsed) {
  // Short: clean, and in fewer than kShortTicks when timed (a call of long items runs alone while
  // its worker wakes up, or while the kernel keeps it off a CPU: that says nothing of the next).
  // A joined call that was not timed (a patient call that a stall republished loud) says nothing
  // of its length: not short.
  const bool short_call = clean && (timed ? elapsed < kShortTicks : alone);
  if (probe) {
    last.joined = 0;
    if (alone && short_call && elapsed < last.joined_best) {
      last.alone = kPatientAfter;  // faster alone than joined: patient from now on
      last.alone_ticks = elapsed;
      last.backoff = 0;
    } else if (last.backoff < kProbeBackoffMax) {
      ++last.backoff;
    }
    last.joined_best = ~uint64_t{0};
    return;
  }
  if (!short_call) {
    last.alone = 0;
    last.alone_ticks = 0;
    last.joined = 0;
    last.joined_best = ~uint64_t{0};
  } else if (alone) {  // does not end a run of joined calls: the two kinds may alternate
    if (last.alone < kPatientAfter) ++last.alone;
    if (timed && elapsed > last.alone_ticks) last.alone_ticks = elapsed;
  } else {
    last.alone = 0;
    last.alone_ticks = 0;
    if (elapsed < last.joined_best) last.joined_best = elapsed;
    ++last.joined;
  }
}

}  // namespace poolshim::core
