// Futex wait/wake on a 32-bit atomic, and a CPU pause for spin loops. Linux only (as the shim).
#pragma once
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace poolshim::core {

// Sleeps while *word == expected (returns at once if it differs; may return spuriously).
// Returns 0 when woken (or spuriously), -1 when *word differed or a signal interrupted.
inline long futex_wait(std::atomic<uint32_t>* word, uint32_t expected) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected,
                 nullptr, nullptr, 0);
}

// futex_wait() for at most `ns` nanoseconds (a relative timeout, as FUTEX_WAIT takes it).
inline long futex_wait_for(std::atomic<uint32_t>* word, uint32_t expected, long ns) {
  struct timespec t = {ns / 1000000000L, ns % 1000000000L};
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, &t,
                 nullptr, 0);
}

// Wakes at most n threads sleeping on word.
// Returns how many it woke.
inline long futex_wake(std::atomic<uint32_t>* word, int n) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE_PRIVATE, n, nullptr,
                 nullptr, 0);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

}  // namespace poolshim::core
