/* What the C benches' spin loops need: a pause between polls and the monotonic clock in ns. */
#ifndef POOLSHIM_BENCH_SPIN_H
#define POOLSHIM_BENCH_SPIN_H

#include <time.h>

static inline double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

#endif
