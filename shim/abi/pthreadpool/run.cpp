// run_ranges()/width() on a resolved pthreadpool target.
#include "abi/pthreadpool/run.h"

#include "abi/pthreadpool/grid.h"
#include "diag/log.h"

namespace poolshim::abi::ptp {

size_t width(const Target& t) {
  switch (t.kind) {
    case Kind::serial: return 1;
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

void run_ranges_dispatch(const Target& t, size_t range, core::RangeFn fn, void* ctx, uint32_t flags,
                         core::Work work) {
  if (range == 0) return;
  DenormalsGuard guard(flags);  // restored on unwind too (a destructor)
  bool nested = core::in_task() || in_executor_task();
  if (t.kind == Kind::shared && !in_executor_task()) {
    // core::run_ranges goes inline by itself when called from one of its tasks.
    core::run_ranges(range, fn, ctx, t.threads, flags, work);
    return;
  }
  if (t.kind == Kind::executor && !nested) {
    run_on_executor(t.handle, range, fn, ctx, flags);
    return;
  }
  core::Run run(0, range);
  fn(ctx, 0, 0, run);  // serial: one run, walked incrementally by the surface
}

void grid::warn_too_large(const char* what) {
  POOLSHIM_LOG(warn, "%s: the grid has more than SIZE_MAX tiles; nothing was run", what);
}

}  // namespace poolshim::abi::ptp
