// The one process-wide pool. Nothing here knows a legacy ABI exists: abi/* translates each
// surface's calls into run().
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::core {

// A task item: fn(ctx, thread_index, item). Within one run() call, no two concurrent invocations
// share a thread_index, and thread_index < the call's width (see width()).
using TaskFn = void (*)(void* ctx, size_t thread_index, size_t item);

// Runs fn for every item in [0, range) exactly once and returns when all are done.
// max_threads: at most this many threads work on the call (0 = no limit beyond the pool).
// engine_flags: pthreadpool flags (PTHREADPOOL_FLAG_DISABLE_DENORMALS, _YIELD_WORKERS).
// A call from inside a pool task (any surface) runs inline on the calling thread. Concurrent
// top-level callers are serialized: every call is executed, none is lost. The pool is created on
// the first call that needs more than one thread.
void run(size_t range, TaskFn fn, void* ctx, size_t max_threads, uint32_t engine_flags = 0);

// How many threads a call with this limit may use right now: min(max_threads or pool size, pool
// size), at least 1. Lock-free; never starts the pool.
size_t width(size_t max_threads);

// The pool's size: threads that run tasks, counting the caller. Before the pool has started
// this is the size it will start with. Lock-free.
size_t pool_size();

// True when the pool's worker threads exist.
bool started();

// True while the calling thread is executing a pool task (then run() goes inline).
bool in_task();

// Ask the pool to take this size (1..budget) for the next top-level call. Safe at any time,
// including while other threads are inside run() and from inside a task: the change is applied
// between calls, never under a running one.
void request_size(size_t threads);

}  // namespace poolshim::core
