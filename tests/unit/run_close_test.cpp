// core::Run's close() after take() has closed the run itself, while a thief that judged the run
// open a moment earlier holds its steal flag: close() must leave closed_end() at the end take()
// closed it at. It used to settle the run a second time (end 0 -> 0) and record 0, so the owner
// counted 0 - begin items as run (items.h, "no item counted twice" fired in CI under ASan).
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <thread>

#include "core/run.h"

namespace poolshim::core {
namespace {

TEST(RunClose, AClosedRunKeepsItsEndWhileAThiefLooks) {
  core::Run run(1, 1);
  std::atomic<bool> stop{false};
  std::thread thief([&] {
    size_t b, e;
    // A thief that judged the run earlier: steal() on a run that may have just closed.
    while (!stop.load(std::memory_order_relaxed)) run.steal(true, &b, &e);
  });
  long bad = 0;
  size_t first_begin = 0, first_end = 0, first_ran = 0;
  // 200000 short runs: the unfixed close() recorded a wrong end in thousands of them per
  // million on 2 CPUs; a run is four items, so the thief often meets a run that just closed.
  for (long it = 0; it < 200000; ++it) {
    const size_t begin = 100 + static_cast<size_t>(it % 1000) * 10;
    run.open(begin, begin + 4, true);
    Taker taker(run);
    size_t i = begin;
    while (taker.take(i)) ++i;  // the owner runs [begin, i); the thief may have taken the rest
    run.close();
    if (run.closed_end() != i && bad++ == 0) {
      first_begin = begin;
      first_end = run.closed_end();
      first_ran = i;
    }
  }
  stop = true;
  thief.join();
  EXPECT_EQ(bad, 0) << "first: run opened at " << first_begin << ", the owner ran to " << first_ran
                    << ", close() recorded " << first_end;
}

}  // namespace
}  // namespace poolshim::core
