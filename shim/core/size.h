// The size policy: how many threads the pool and each call may use, decided in one place. The
// surfaces bring requests and limits; the scheduler (pool.cpp) only asks, once per top-level call,
// how wide that call may be. Inputs and what they decide:
//  - the computed budget (budget/budget.h) and the run-time cap (poolshim_set_budget): the budget
//    in force is min(cap, computed budget); the busy count is held against it (busy.h);
//  - the grants: components ask for threads, each gets min(request, computed budget), and the
//    pool's size follows the largest grant (the budget when nobody asked), never above the budget
//    in force. A component is a name (C API, "executorch") or an anonymous handle (one per
//    pthreadpool_create);
//  - the width of a call: min(limit, pool size), and never above the calling thread's last
//    width() read (legacy kernels size per-thread buffers by the width they read, then index
//    them by thread number).
// The grants take a mutex and a small table (never on a hot path); the rest is lock-free.
#pragma once
#include <atomic>
#include <cstddef>

#include "budget/budget.h"
#include "core/workers.h"
#include "base/fork_hooks.h"

namespace poolshim::core {

// --- Grants ---

// Records (or updates) a named component's request; 0 means "the whole budget". Returns the grant.
size_t request_threads(const char* component, size_t threads);
// Forgets a named component's request. Unknown names are ignored.
void release_threads(const char* component);

// Anonymous requests (pthreadpool handles): returns an id for release_request().
size_t add_request(size_t threads, size_t* grant_out);
void update_request(size_t id, size_t threads, size_t* grant_out);
void release_request(size_t id);

// The grant a request of this size would get now.
size_t grant_for(size_t threads);

// Number of live requests, named and anonymous.
size_t live_requests();

// fork (lifecycle/fork.cpp's table): the requests' lock (the requests are the child's too).
POOLSHIM_FORK_HOOK void grants_atfork_prepare();
POOLSHIM_FORK_HOOK void grants_atfork_parent();
POOLSHIM_FORK_HOOK void grants_atfork_child();

// --- The pool's size, the cap, the width of a call ---

// How many threads a call with this limit may use right now: min(max_threads or pool size, pool
// size), at least 1. Lock-free; never starts the pool. The calling thread's next top-level call
// uses at most the width it read here, whatever resizes happen in between.
size_t width(size_t max_threads);

// The same number without recording a read: the width the calling thread's next top-level call
// with this limit would get now (bounded by its pending width() read). For the shim's own reads
// (a surface sizing its chunks just before its call, a log line): they must never overwrite the
// width the caller read, which bounds its thread indices.
size_t peek_width(size_t max_threads);

// The pool's size: threads that run tasks, counting the caller (the budget, or the largest
// grant when that is smaller). Lock-free.
size_t pool_size();

// Ask the pool to take this size (1..budget) from the next top-level call on (0 = the budget).
// Safe at any time, from any thread, including from inside a task. Never creates or joins
// threads: a smaller size only narrows the width of later calls. The grants call it.
void request_size(size_t threads);

// The run-time cap (poolshim_set_budget): 0 removes it. Returns the budget now in force.
// Calls that start after it returns use at most the new budget; running calls finish unchanged.
size_t set_cap(size_t threads);
// The cap in force (0 = none), and the budget in force (min(cap, computed budget)).
size_t cap();
size_t budget();

// What the scheduler reads on every top-level call, inline over the state that size.cpp
// defines, so that core::run_ranges() compiles to what it did when this state was its own.
namespace size_policy {

// The size asked for by the grants (request_size), 0 = the budget. Relaxed: a hint consumed by
// the next top-level call.
__attribute__((visibility("hidden"))) extern std::atomic<size_t> g_target;
// The run-time cap (set_cap), 0 = none. Relaxed, read at each top-level call.
__attribute__((visibility("hidden"))) extern std::atomic<size_t> g_cap;
// This thread's last width() read outside a task, 0 = none pending; consumed by its next
// top-level call. __thread, not thread_local: no dynamic initialisation, so no TLS wrapper.
extern __thread size_t t_read_width
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

inline size_t computed_budget() { return budget::current().threads; }

inline size_t budget_in_force() {
  size_t b = computed_budget();
  size_t cap = g_cap.load(std::memory_order_relaxed);
  return cap != 0 && cap < b ? cap : b;
}

inline size_t current_size() {
  if (workers::failure() != nullptr) return 1;  // degraded: every call runs on its caller
  size_t b = budget_in_force();
  size_t t = g_target.load(std::memory_order_relaxed);
  return t == 0 || t > b ? b : t;
}

// The width of a top-level call with this limit, bounded by this thread's last width() read: a
// resize, a cap or a handle's new thread count may land between that read and the call.
// Consumes the read, so it bounds one call only.
inline size_t call_width(size_t max_threads) {
  size_t w = current_size();
  if (max_threads != 0 && max_threads < w) w = max_threads;
  if (t_read_width != 0) {
    if (t_read_width < w) w = t_read_width;
    t_read_width = 0;
  }
  return w == 0 ? 1 : w;
}

}  // namespace size_policy
}  // namespace poolshim::core
