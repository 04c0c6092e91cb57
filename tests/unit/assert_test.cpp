// base/assert.h: POOLSHIM_ASSERT checks the invariants core states. In a build that checks them
// (POOLSHIM_ASSERTIONS: Debug, sanitizer and test builds), breaking one on purpose stops the
// process with the one-line message; in a build that compiles them out the cases skip, saying so.
#include <gtest/gtest.h>

#include "base/assert.h"
#include "core/slots.h"

namespace {

using namespace poolshim::core;

#if defined(POOLSHIM_ASSERTIONS) && POOLSHIM_ASSERTIONS
constexpr bool kChecked = true;
#else
constexpr bool kChecked = false;
#endif

// A worker's slot reference given back twice: the second release would underflow refs and wake
// an owner that is not waiting (slots.cpp, slot_leave).
void release_twice() {
  SlotRef ref(g_slots[kSlots - 1], kSlots - 1);
  slot_leave(g_slots[kSlots - 1]);
}

TEST(Assert, ReferenceGivenBackTwiceStopsTheProcess) {
  if (!kChecked) GTEST_SKIP() << "this build compiles POOLSHIM_ASSERT out (Release)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(release_twice(), "poolshim: assertion failed: before != 0 \\(.*slots.cpp:[0-9]+\\)");
}

// A slot released by a thread that does not own it (slots.h, release_slot).
TEST(Assert, SlotReleasedByAnotherThreadStopsTheProcess) {
  if (!kChecked) GTEST_SKIP() << "this build compiles POOLSHIM_ASSERT out (Release)";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(release_slot(kSlots - 2), "poolshim: assertion failed: t_owned_slot == s");
}

TEST(Assert, HoldsWhenTheInvariantHolds) {
  const size_t s = acquire_slot();
  ASSERT_LT(s, kSlots);
  release_slot(s);  // owned, no call published: no assertion fires
  POOLSHIM_ASSERT(s < kSlots);
  SUCCEED();
}

}  // namespace
