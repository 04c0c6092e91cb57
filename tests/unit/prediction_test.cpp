// What a slot predicts of its next call (core/prediction.h): patience from calls that ran alone,
// and the probe that finds joins that do not pay. learn() is the owner's bookkeeping alone (no
// clock, no atomics), so each rule is checked here call by call; the process tests
// (process.scheduler.counters_patience_*) check the scheduler that uses it.
#include "core/prediction.h"

#include <gtest/gtest.h>

namespace core = poolshim::core;

namespace {

constexpr uint64_t kFast = 1000, kSlow = 3000;  // ticks, both well under kShortTicks

// A short, clean, timed call that a worker joined, `ticks` long.
void joined(core::Prediction& p, uint64_t ticks) {
  ASSERT_FALSE(p.patient());
  core::learn(p, false, true, false, p.timed(), ticks);
}

// Joined calls until the next one is a probe; returns how many it took.
unsigned joined_until_probe(core::Prediction& p, uint64_t ticks) {
  unsigned n = 0;
  while (!p.probing() && n < 10000) joined(p, ticks), ++n;
  return n;
}

TEST(Prediction, ShortCallsThatRanAloneMakeTheWorkPatient) {
  core::Prediction p;
  EXPECT_FALSE(p.patient());
  for (unsigned i = 0; i < core::kPatientAfter; ++i) {
    EXPECT_TRUE(p.timed());
    core::learn(p, true, true, false, true, kFast);
  }
  EXPECT_TRUE(p.patient());
  EXPECT_FALSE(p.timed());  // no clock on a patient call's path
  // A patient call that ran alone stays patient (not timed: elapsed is 0).
  core::learn(p, true, true, false, false, 0);
  EXPECT_TRUE(p.patient());
  // One that a worker found still open after its patience (not clean) is not.
  core::learn(p, false, false, false, false, 0);
  EXPECT_FALSE(p.patient());
}

TEST(Prediction, LongOrWakingCallsAreNotShort) {
  core::Prediction p;
  core::learn(p, true, true, false, true, kFast);
  core::learn(p, true, true, false, true, core::kShortTicks);  // alone, but long
  EXPECT_EQ(p.alone, 0u);
  core::learn(p, true, true, false, true, kFast);
  core::learn(p, true, false, false, true, kFast);  // woke a sleeper
  EXPECT_FALSE(p.patient());
  // A joined call that was not timed (a patient call a stall republished) says nothing of its
  // length: it ends the run of joined calls instead of counting as a fast one.
  joined(p, kSlow);
  core::learn(p, false, true, false, false, 0);
  EXPECT_EQ(p.joined, 0u);
  EXPECT_EQ(p.joined_best, ~uint64_t{0});
}

TEST(Prediction, JoinedCallsAreProbedAfterKProbeAfter) {
  core::Prediction p;
  EXPECT_EQ(joined_until_probe(p, kSlow), core::kProbeAfter);
  EXPECT_TRUE(p.patient());  // the probe is published patient...
  EXPECT_TRUE(p.timed());    // ... and timed
}

TEST(Prediction, AProbeFasterAloneKeepsTheWorkPatient) {
  core::Prediction p;
  joined_until_probe(p, kSlow);
  core::learn(p, true, true, true, true, kFast);  // the probe: alone, faster than every join
  EXPECT_FALSE(p.probing());
  EXPECT_TRUE(p.patient());
  EXPECT_FALSE(p.timed());
  EXPECT_EQ(p.backoff, 0u);
}

TEST(Prediction, AProbeNoFasterAloneBacksOff) {
  core::Prediction p;
  joined_until_probe(p, kFast);
  core::learn(p, true, true, true, true, kSlow);  // alone, but slower than the fastest join
  EXPECT_FALSE(p.patient());
  EXPECT_EQ(p.backoff, 1u);
  // The next probe waits twice as many joined calls; the fastest join is measured afresh.
  EXPECT_EQ(p.joined_best, ~uint64_t{0});
  EXPECT_EQ(joined_until_probe(p, kFast), 2 * core::kProbeAfter);
  // A probe a worker joined (it outlived its patience) is no evidence for patience either.
  core::learn(p, false, false, true, true, kFast / 2);
  EXPECT_FALSE(p.patient());
  EXPECT_EQ(p.backoff, 2u);
  // The backoff stops at kProbeBackoffMax: a probe at most every kProbeAfter << max joined calls.
  for (int i = 0; i < 20; ++i) {
    joined_until_probe(p, kFast);
    core::learn(p, true, true, true, true, kSlow);
  }
  EXPECT_EQ(p.backoff, core::kProbeBackoffMax);
  EXPECT_EQ(joined_until_probe(p, kFast), core::kProbeAfter << core::kProbeBackoffMax);
}

TEST(Prediction, CallsThatRanAloneDoNotEndARunOfJoinedOnes) {
  // Where a worker joins some calls and not others, the two kinds alternate: the joined ones
  // still lead to a probe.
  core::Prediction p;
  unsigned calls = 0;
  while (!p.probing() && calls < 1000) {
    joined(p, kSlow);
    if (!p.probing()) core::learn(p, true, true, false, true, kFast);
    calls += 2;
  }
  EXPECT_TRUE(p.probing());
  EXPECT_LE(calls, 2 * core::kProbeAfter);
}

TEST(Prediction, OnlyCallsShorterThanAWorkersPatienceRunAsOneRun) {
  // Made patient by calls that ran alone: one run when the slowest of them was short.
  core::Prediction fast, slow;
  for (unsigned i = 0; i < core::kPatientAfter; ++i) {
    core::learn(fast, true, true, false, true, core::kOneRunTicks / 2);
    core::learn(slow, true, true, false, true, i == 0 ? core::kOneRunTicks : kFast);
  }
  EXPECT_TRUE(fast.patient());
  EXPECT_TRUE(fast.one_run());
  EXPECT_TRUE(slow.patient());
  EXPECT_FALSE(slow.one_run());  // a worker may find it open: it keeps its lanes
  // Made patient by a probe: the probe runs as one run after short joined calls only, and the
  // work then runs as one run when the probe itself was short.
  core::Prediction p;
  joined_until_probe(p, kFast);
  EXPECT_TRUE(p.one_run());
  core::learn(p, true, true, true, true, kFast / 2);
  EXPECT_TRUE(p.patient());
  EXPECT_TRUE(p.one_run());
  core::Prediction q;
  joined_until_probe(q, core::kOneRunTicks);
  EXPECT_TRUE(q.patient());
  EXPECT_FALSE(q.one_run());
  // A loud call after all: nothing runs as one run.
  core::learn(q, false, true, true, true, core::kOneRunTicks * 2);
  EXPECT_FALSE(q.patient());
  EXPECT_FALSE(q.one_run());
}

}  // namespace
