// The one process-wide pool. Nothing here knows a legacy ABI exists: abi/* translates each
// surface's calls into run() / run_ranges().
//
// Scheduling contract (docs/design.md, "The scheduler"):
//  - A call never waits for another caller's call: a top-level call that finds the pool busy
//    shares the workers with the calls already running, or runs its own items on its own thread.
//  - No lock of the shim is held while a task runs.
//  - A call from inside a pool task (any surface) runs inline on the calling thread.
//  - Within one call no two concurrent invocations share a thread_index, and every thread_index
//    is below the call's width (see width() in size.h).
//  - Progress: while any item blocks, every item that no thread has started can be run by another
//    participant of the call (pthreadpool's contract; run.h says how).
//  - An exception escaping a task is caught on the thread that threw it; the call skips the items
//    nobody has claimed yet, waits for the claimed ones, and rethrows the first exception on the
//    calling thread. The pool stays usable.
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/run.h"
#include "base/fork_hooks.h"

namespace poolshim::core {

// A task item: fn(ctx, thread_index, item).
using TaskFn = void (*)(void* ctx, size_t thread_index, size_t item);

// A run of consecutive items from `begin`: fn(ctx, thread_index, begin, run) runs items begin,
// begin+1, ... in order on the calling thread, asking take(i) (or take_upto) of a core::Taker on
// the run before it starts item i, and returns when take() says no. The pool hands out runs so that
// a surface can walk N-d indices incrementally (no division per item) and touch thread-local state
// once per run; take() is what lets another thread run the items this one has not started (run.h).
using RangeFn = void (*)(void* ctx, size_t thread_index, size_t begin, Run& run);

// Pool-level flags (same bit values as PTHREADPOOL_FLAG_*: abi/pthreadpool/run.h checks it).
constexpr uint32_t kFlagDisableDenormals = 0x1;  // workers run this call's items with FTZ/DAZ
constexpr uint32_t kFlagYieldWorkers = 0x2;      // workers sleep right after this call

// What a call runs beyond its RangeFn: a surface has one RangeFn for every task of its kind, so
// it names the task (the host's function and context) with work_of(). The pool takes calls of
// the same fn, work and range to cost alike (patience, publish.h); 0 names nothing beyond fn.
using Work = uint64_t;
template <typename F>
inline Work work_of(F fn, const void* context) {
  static_assert(sizeof(F) == sizeof(uintptr_t), "a function pointer");
  uintptr_t f;
  __builtin_memcpy(&f, &fn, sizeof f);
  return (static_cast<Work>(f) * 0x9E3779B97F4A7C15u) ^ reinterpret_cast<uintptr_t>(context);
}

// Runs fn for every item in [0, range) exactly once and returns when all are done.
// max_threads: at most this many threads work on the call (0 = no limit beyond the pool).
void run_ranges(size_t range, RangeFn fn, void* ctx, size_t max_threads, uint32_t flags = 0,
                Work work = 0);

// Per-item convenience over run_ranges().
void run(size_t range, TaskFn fn, void* ctx, size_t max_threads, uint32_t flags = 0, Work work = 0);

// How many threads a call may use (width(), pool_size(), the grants, the cap): the size policy,
// core/size.h. The scheduler asks it once per top-level call.

// True when the pool's worker threads exist.
bool started();

// True while the calling thread is executing a pool task (then run() goes inline).
bool in_task();

// Why the pool runs serially, or nullptr when it does not (its workers could not be started).
const char* degraded_reason();

// Worker threads that exist, and the most the pool asked for: fewer exist than were asked for
// after a partial spawn failure (the pool runs with them and retries with backoff).
size_t workers_started();
size_t workers_wanted();

// fork(): hooks called by lifecycle/fork.cpp's process-wide atfork handlers.
POOLSHIM_FORK_HOOK void pool_atfork_prepare();
POOLSHIM_FORK_HOOK void pool_atfork_parent();
POOLSHIM_FORK_HOOK void pool_atfork_child();

}  // namespace poolshim::core
