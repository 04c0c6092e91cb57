// run_ranges()/width() on a resolved pthreadpool target, and the denormals guard.
#include "abi/pthreadpool_run.h"

#include "abi/pthreadpool_grid.h"
#include "diag/log.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace poolshim::abi::ptp {

// Flush-to-zero + denormals-are-zero. Upstream pthreadpool does the same on the caller before a
// serial loop and on every worker; the engine takes care of its workers, we of the caller.
#if defined(__x86_64__) || defined(__i386__)
namespace {
constexpr uint32_t kMxcsrFtzDaz = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)
}
DenormalsGuard::DenormalsGuard(uint32_t flags)
    : active_((flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0), saved_(0) {
  if (!active_) return;
  saved_ = _mm_getcsr();
  _mm_setcsr(static_cast<unsigned>(saved_) | kMxcsrFtzDaz);
}
DenormalsGuard::~DenormalsGuard() {
  if (active_) _mm_setcsr(static_cast<unsigned>(saved_));
}
#elif defined(__aarch64__)
namespace {
constexpr uint64_t kFpcrFzFz16 = (1ull << 24) | (1ull << 19);  // FZ | FZ16
}
DenormalsGuard::DenormalsGuard(uint32_t flags)
    : active_((flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0), saved_(0) {
  if (!active_) return;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
  uint64_t v = saved_ | kFpcrFzFz16;
  __asm__ __volatile__("msr fpcr, %0" : : "r"(v));
}
DenormalsGuard::~DenormalsGuard() {
  if (active_) __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
}
#else
DenormalsGuard::DenormalsGuard(uint32_t flags) : active_(false), saved_(0) { (void)flags; }
DenormalsGuard::~DenormalsGuard() {}
#endif

size_t width(const Target& t) {
  switch (t.kind) {
    case Kind::serial:
      return 1;
    case Kind::shared:
      if (core::in_task() || in_executor_task()) return 1;  // nested: runs inline
      return core::width(t.threads);
    case Kind::executor:
      if (core::in_task() || in_executor_task()) return 1;
      return executor_width(t.handle);
  }
  return 1;
}

size_t peek_width(const Target& t) {
  if (t.kind == Kind::shared && !core::in_task() && !in_executor_task())
    return core::peek_width(t.threads);
  return width(t);  // the other kinds record nothing
}

void run_ranges_dispatch(const Target& t, size_t range, core::RangeFn fn, void* ctx,
                         uint32_t flags) {
  if (range == 0) return;
  DenormalsGuard guard(flags);  // restored on unwind too (a destructor)
  bool nested = core::in_task() || in_executor_task();
  if (t.kind == Kind::shared && !in_executor_task()) {
    // core::run_ranges goes inline by itself when called from one of its tasks.
    core::run_ranges(range, fn, ctx, t.threads, flags);
    return;
  }
  if (t.kind == Kind::executor && !nested) {
    run_on_executor(t.handle, range, fn, ctx, flags);
    return;
  }
  fn(ctx, 0, 0, range);  // serial: one run, walked incrementally by the surface
}

void grid::warn_too_large(const char* what) {
  POOLSHIM_LOG(warn, "%s: the grid has more than SIZE_MAX tiles; nothing was run", what);
}

}  // namespace poolshim::abi::ptp
