// The one process-wide pool. Nothing here knows a legacy ABI exists: abi/* translates each
// surface's calls into run() / run_ranges().
//
// Scheduling contract (docs/design.md, "The scheduler"):
//  - A call never waits for another caller's call: a top-level call that finds the pool busy
//    shares the workers with the calls already running, or runs its own items on its own thread.
//  - No lock of the shim is held while a task runs.
//  - A call from inside a pool task (any surface) runs inline on the calling thread.
//  - Within one call no two concurrent invocations share a thread_index, and every thread_index
//    is below the call's width (see width()).
//  - An exception escaping a task is caught on the thread that threw it; the call skips the items
//    nobody has claimed yet, waits for the claimed ones, and rethrows the first exception on the
//    calling thread. The pool stays usable.
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::core {

// A task item: fn(ctx, thread_index, item).
using TaskFn = void (*)(void* ctx, size_t thread_index, size_t item);

// A run of consecutive items: fn(ctx, thread_index, begin, end) must run items [begin, end) in
// order on the calling thread. The pool hands out runs so that a surface can walk N-d indices
// incrementally (no division per item) and touch thread-local state once per run.
using RangeFn = void (*)(void* ctx, size_t thread_index, size_t begin, size_t end);

// Pool-level flags (same bit values as PTHREADPOOL_FLAG_*).
constexpr uint32_t kFlagDisableDenormals = 0x1;  // workers run this call's items with FTZ/DAZ
constexpr uint32_t kFlagYieldWorkers = 0x2;      // workers sleep right after this call

// Runs fn for every item in [0, range) exactly once and returns when all are done.
// max_threads: at most this many threads work on the call (0 = no limit beyond the pool).
void run_ranges(size_t range, RangeFn fn, void* ctx, size_t max_threads, uint32_t flags = 0);

// Per-item convenience over run_ranges().
void run(size_t range, TaskFn fn, void* ctx, size_t max_threads, uint32_t flags = 0);

// How many threads a call with this limit may use right now: min(max_threads or pool size, pool
// size), at least 1. Lock-free; never starts the pool. The calling thread's next top-level call
// uses at most the width it read here, whatever resizes happen in between (legacy kernels size
// per-thread buffers by the width they read, then index them by thread number).
size_t width(size_t max_threads);

// The same number without recording a read: the width the calling thread's next top-level call
// with this limit would get now (bounded by its pending width() read). For the shim's own reads
// (a surface sizing its chunks just before its call, a log line): they must never overwrite the
// width the caller read, which bounds its thread indices.
size_t peek_width(size_t max_threads);

// The pool's size: threads that run tasks, counting the caller (the budget, or a smaller size
// asked for with request_size()). Lock-free.
size_t pool_size();

// True when the pool's worker threads exist.
bool started();

// True while the calling thread is executing a pool task (then run() goes inline).
bool in_task();

// Ask the pool to take this size (1..budget) from the next top-level call on (0 = the budget).
// Safe at any time, from any thread, including from inside a task. Never creates or joins
// threads: a smaller size only narrows the width of later calls.
void request_size(size_t threads);

// The run-time cap (poolshim_set_budget): 0 removes it. Returns the budget now in force.
// Calls that start after it returns use at most the new budget; running calls finish unchanged.
size_t set_cap(size_t threads);
// The cap in force (0 = none), and the budget in force (min(cap, computed budget)).
size_t cap();
size_t budget();

// Why the pool runs serially, or nullptr when it does not (its workers could not be started).
const char* degraded_reason();

// Worker threads that exist, and the most the pool asked for: fewer exist than were asked for
// after a partial spawn failure (the pool runs with them and retries with backoff).
size_t workers_started();
size_t workers_wanted();

// fork(): hooks called by core/fork.cpp's process-wide atfork handlers.
void pool_atfork_prepare();
void pool_atfork_parent();
void pool_atfork_child();

}  // namespace poolshim::core
