// The one primitive every pthreadpool_* function is written on: run a flat range of items on
// whatever a pthreadpool_t stands for (the shared pool within the handle's grant, the client's
// executor, or the calling thread).
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi/pthreadpool/handle.h"
#include "base/fp_mode.h"
#include "core/pool.h"
#include "core/size.h"
#include "core/tls.h"

namespace poolshim::abi::ptp {

// Threads a call on this target may use now (>= 1). Bounds every thread_index of the call.
size_t width(const Target& t);
// The same without recording a read (core::peek_width): for a surface's own read just before
// its call, which must not overwrite the width its caller read (pthreadpool_get_threads_count).
size_t peek_width(const Target& t);

// fn(ctx, thread_index, begin, run) over runs of consecutive items that cover [0, range) exactly
// once (core/pool.h's RangeFn: the run grants each item); returns when all are done. thread_index <
// width(t). The serial path (NULL pool, width 1, nested call) is one run [0, range) on the calling
// thread. flags: PTHREADPOOL_FLAG_* (DISABLE_DENORMALS is honoured on every path, including the
// serial one, as upstream does). An exception escaping fn: see docs/pthreadpool-coverage.md,
// "Exceptions and unwinding".
// work: the host's task (core::work_of(), core/pool.h).
void run_ranges_dispatch(const Target& t, size_t range, core::RangeFn fn, void* ctx, uint32_t flags,
                         core::Work work);
// Items of an executor call the calling thread is running (executor.cpp): > 0, nested calls go
// inline. Read by the inline fast path below on every call, so declared here.
extern POOLSHIM_FAST_TLS thread_local unsigned t_executor_depth
    __attribute__((visibility("hidden")));
// True while the calling thread runs an item of an executor call (nested calls go inline).
inline bool in_executor_task() { return t_executor_depth > 0; }

inline void run_ranges(const Target& t, size_t range, core::RangeFn fn, void* ctx, uint32_t flags,
                       core::Work work) {
  // The two common paths without a floating-point mode to set go without a call in between:
  // the serial one is one run, and the shared pool's is the core's (which returns at once for an
  // empty range and runs a nested call inline by itself). The rest: run_ranges_dispatch().
  if ((flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) == 0) {
    if (t.kind == Kind::serial) {
      core::Run run(0, range);
      if (range != 0) fn(ctx, 0, 0, run);
      return;
    }
    if (t.kind == Kind::shared && !in_executor_task())
      return core::run_ranges(range, fn, ctx, t.threads, flags, work);
  }
  run_ranges_dispatch(t, range, fn, ctx, flags, work);
}

// The executor path (pthreadpool_executor.cpp): called by run_ranges() for Kind::executor.
void run_on_executor(Handle* h, size_t range, core::RangeFn fn, void* ctx, uint32_t flags);
size_t executor_width(Handle* h);

// Flushes denormals to zero while alive when flags asks for it
// (PTHREADPOOL_FLAG_DISABLE_DENORMALS), the caller's floating-point mode restored after
// (base/fp_mode.h); otherwise does nothing.
struct DenormalsGuard : base::DenormalsFlushed {
  explicit DenormalsGuard(uint32_t flags)
      : DenormalsFlushed((flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) != 0) {}
};

// The pthreadpool flags go to core::run_ranges() as they are: the core's flags have the same bits.
static_assert(core::kFlagDisableDenormals == PTHREADPOOL_FLAG_DISABLE_DENORMALS,
              "core/pool.h's kFlagDisableDenormals must be PTHREADPOOL_FLAG_DISABLE_DENORMALS");
static_assert(core::kFlagYieldWorkers == PTHREADPOOL_FLAG_YIELD_WORKERS,
              "core/pool.h's kFlagYieldWorkers must be PTHREADPOOL_FLAG_YIELD_WORKERS");

}  // namespace poolshim::abi::ptp
