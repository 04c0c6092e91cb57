// The shim's one clock: CLOCK_MONOTONIC in nanoseconds (now_ns()), and the cheap tick counter the
// scheduler times short calls with (ticks()). Every deadline, spin bound and timeout of the shim is
// counted with now_ns(); nothing else calls clock_gettime for that.
#pragma once
#include <time.h>

#include <cstdint>

namespace poolshim::base {

// Monotonic nanoseconds (a vDSO call, no system call: 15-25 ns). Never goes back; unrelated to
// the wall clock.
inline long now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

// A counter that only goes up on the calling CPU, at a fixed rate: the time-stamp counter on x86
// (a few ns to read, no fence: a call's length in ticks, compared with bounds in ticks), else
// now_ns(). Its unit is not nanoseconds; use it for comparisons with tick bounds only.
inline uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  return static_cast<uint64_t>(now_ns());
#endif
}

}  // namespace poolshim::base
