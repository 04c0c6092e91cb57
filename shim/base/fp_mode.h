// The floating-point mode of a scope: flush-to-zero and denormals-are-zero while alive, the
// caller's mode restored on the way out (unwinding too). Upstream pthreadpool does the same for
// PTHREADPOOL_FLAG_DISABLE_DENORMALS on the caller and on every worker; the shim's two users are
// the pool's workers (core/items.h) and the caller's own thread (abi/pthreadpool/run.h).
// Inline: the workers' loop pays one branch when the flag is off.
#pragma once
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace poolshim::base {

class DenormalsFlushed {
 public:
  explicit DenormalsFlushed(bool active) : active_(active) {
#if defined(__x86_64__) || defined(__i386__)
    if (active_) {
      saved_ = _mm_getcsr();
      _mm_setcsr(static_cast<unsigned>(saved_) | kMxcsrFtzDaz);
    }
#elif defined(__aarch64__)
    if (active_) {
      __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
      uint64_t v = saved_ | kFpcrFzFz16;
      __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
    }
#endif
  }
  ~DenormalsFlushed() {
#if defined(__x86_64__) || defined(__i386__)
    if (active_) _mm_setcsr(static_cast<unsigned>(saved_));
#elif defined(__aarch64__)
    if (active_) __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  DenormalsFlushed(const DenormalsFlushed&) = delete;
  DenormalsFlushed& operator=(const DenormalsFlushed&) = delete;

 private:
  static constexpr unsigned kMxcsrFtzDaz = 0x8040u;  // FTZ (bit 15) | DAZ (bit 6)
  static constexpr uint64_t kFpcrFzFz16 = (1ull << 24) | (1ull << 19);  // FZ | FZ16
  bool active_;
  uint64_t saved_ = 0;
};

}  // namespace poolshim::base
