// The one pool: lazy start, nesting, serialization of concurrent callers, resize between calls,
// fork. See pool.h for the contract.
//
// Locking: g_run_mutex is held by the one top-level caller that is using the engine, for the
// whole of its call. Nothing reached from inside a task takes it: a nested call (t_task_depth > 0)
// runs inline, and every query (width, pool_size, started) reads atomics. So a task of module A
// that calls module B's parallel_for cannot deadlock on the pool that A's call holds.
#include "core/pool.h"
#include "core/tls.h"

#include <pthread.h>

#include <atomic>
#include <limits>

#include "budget/budget.h"
#include "budget/group.h"
#include "core/busy.h"
#include "core/engine.h"
#include "diag/log.h"

namespace poolshim::core {
namespace {

pthread_mutex_t g_run_mutex = PTHREAD_MUTEX_INITIALIZER;

// The engine pool and its size. Written only under g_run_mutex (by the caller that (re)creates
// it, and by the atfork child handler); g_size is also read lock-free by queries, hence atomic.
void* g_engine_pool = nullptr;
std::atomic<size_t> g_size{0};  // 0 = not started

// The size wanted for the next top-level call; 0 = the budget. Written by request_size() from
// any thread (relaxed: it is a hint consumed at the next call), read under g_run_mutex.
std::atomic<size_t> g_target{0};

// Bumped whenever the engine pool is replaced, so workers re-derive their thread index.
// Written under g_run_mutex (release), read by workers inside tasks (acquire).
std::atomic<unsigned> g_generation{1};
// Next index for a worker thread of the current generation (the caller is always 0).
std::atomic<size_t> g_next_worker_index{1};

pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

// Group mode (interim hook): the engine generation whose workers were told to sleep when idle.
// Under g_run_mutex.
unsigned g_quiet_generation = 0;

// Per-thread state. t_task_depth > 0 while the thread runs a task (nested calls go inline).
POOLSHIM_FAST_TLS thread_local unsigned t_task_depth = 0;
POOLSHIM_FAST_TLS thread_local bool t_is_caller = false;
POOLSHIM_FAST_TLS thread_local unsigned t_generation = 0;
POOLSHIM_FAST_TLS thread_local size_t t_worker_index = 0;

size_t budget_threads() { return budget::current().threads; }

size_t wanted_size() {
  size_t b = budget_threads();
  size_t t = g_target.load(std::memory_order_relaxed);
  return (t == 0 || t > b) ? b : t;
}

// The child of fork() inherits the engine's memory but none of its worker threads: leak the
// engine object (destroying it would join threads that do not exist) and start afresh on first
// use. The run mutex may have been held by a thread that does not exist in the child.
void atfork_child() {
  pthread_mutex_init(&g_run_mutex, nullptr);
  g_engine_pool = nullptr;
  g_size.store(0, std::memory_order_relaxed);
  g_generation.fetch_add(1, std::memory_order_relaxed);
}

void register_atfork() { pthread_atfork(nullptr, nullptr, atfork_child); }

// Under g_run_mutex: make the engine match wanted_size(). Returns the usable size (1 = serial).
size_t ensure_engine_locked() {
  size_t want = wanted_size();
  size_t have = g_size.load(std::memory_order_relaxed);
  if (have == want && (want == 1 || g_engine_pool != nullptr)) return have;

  const engine::Api* api = engine::api();
  if (g_engine_pool != nullptr) {
    // No task is running: we hold the run mutex and nested calls never reach the engine.
    api->destroy(g_engine_pool);
    g_engine_pool = nullptr;
    POOLSHIM_LOG(info, "pool resized: %zu -> %zu threads", have, want);
  }
  size_t size = 1;
  if (want > 1 && api != nullptr) {
    pthread_once(&g_atfork_once, register_atfork);
    g_engine_pool = api->create(want);
    if (g_engine_pool != nullptr) {
      size = api->threads_count(g_engine_pool);
      if (have == 0) {
        const budget::Budget& b = budget::current();
        POOLSHIM_LOG(info, "pool started: %zu threads (budget %zu from %s)", size, b.threads, b.source);
      }
    } else {
      POOLSHIM_LOG(warn, "the engine could not create a pool of %zu threads; running serially", want);
    }
  }
  g_generation.fetch_add(1, std::memory_order_release);
  g_next_worker_index.store(1, std::memory_order_relaxed);
  g_size.store(size, std::memory_order_relaxed);
  return size;
}

// The thread index of the calling thread inside a full-width call: the caller is 0, each engine
// worker takes the next free index the first time it runs a task of this engine generation.
// Indices stay below the pool size because the engine has size - 1 workers.
inline size_t worker_index() {
  if (t_is_caller) return 0;
  unsigned gen = g_generation.load(std::memory_order_acquire);
  if (t_generation != gen) {
    t_generation = gen;
    t_worker_index = g_next_worker_index.fetch_add(1, std::memory_order_relaxed);
  }
  return t_worker_index;
}

struct Call {
  TaskFn fn;
  void* ctx;
  size_t range;
  std::atomic<size_t> next{0};  // lanes mode: the next unclaimed item
  bool counted = false;         // group mode: workers account in core/busy.h (interim hook)
};

// Full width: the engine hands out items itself (its own work stealing).
void full_width_item(void* c, size_t item) {
  auto* call = static_cast<Call*>(c);
  ++t_task_depth;
  call->fn(call->ctx, worker_index(), item);
  --t_task_depth;
}

// Limited width: the engine runs `lanes` lanes; each claims items from a shared counter, so at
// most `lanes` threads work on the call and the lane number is an exclusive thread index.
void lane(void* c, size_t lane_index) {
  auto* call = static_cast<Call*>(c);
  // Interim group hook (until the scheduler lands): a worker runs only while the group has a free
  // slot and stops between items when over budget; its items are claimed by the others (the
  // caller's lane always runs to the end, so every item is still run exactly once).
  bool counted = call->counted && !t_is_caller;
  if (counted && !busy::worker_try_enter()) return;
  ++t_task_depth;
  for (size_t i; (i = call->next.fetch_add(1, std::memory_order_relaxed)) < call->range;) {
    call->fn(call->ctx, lane_index, i);
    if (counted && busy::over_budget()) break;
  }
  --t_task_depth;
  if (counted) busy::worker_leave();
}

void run_serial(size_t range, TaskFn fn, void* ctx) {
  ++t_task_depth;
  for (size_t i = 0; i < range; ++i) fn(ctx, 0, i);
  --t_task_depth;
}

}  // namespace

void run(size_t range, TaskFn fn, void* ctx, size_t max_threads, uint32_t engine_flags) {
  if (range == 0 || fn == nullptr) return;
  size_t limit = max_threads == 0 ? std::numeric_limits<size_t>::max() : max_threads;
  if (t_task_depth > 0 || range == 1 || limit == 1) {
    run_serial(range, fn, ctx);  // nested or trivially serial: inline, never touch the pool
    return;
  }

  pthread_mutex_lock(&g_run_mutex);
  size_t size = ensure_engine_locked();
  size_t lanes = limit < size ? limit : size;
  if (lanes > range) lanes = range;
  if (lanes <= 1 || g_engine_pool == nullptr) {
    pthread_mutex_unlock(&g_run_mutex);
    run_serial(range, fn, ctx);
    return;
  }

  const engine::Api* api = engine::api();
  Call call{fn, ctx, range};
  t_is_caller = true;
  // Interim group hook: with POOLSHIM_GROUP the caller counts as busy, every call goes through
  // lanes (so a worker can skip it) and workers sleep right after (a spinning idle worker would
  // take CPU from the other members).
  busy::caller_enter();
  call.counted = budget::group::in_group();
  if (call.counted) {
    engine_flags |= kFlagYieldWorkers;
    // New engine workers spin-wait for their first command (pthreadpool spins unless the last
    // command had the yield flag): hand them an empty command with the flag once per engine, so
    // that idle workers sleep instead of taking CPU from the other members.
    unsigned gen = g_generation.load(std::memory_order_relaxed);
    if (g_quiet_generation != gen) {
      g_quiet_generation = gen;
      api->parallelize_1d(g_engine_pool, [](void*, size_t) {}, nullptr, size, kFlagYieldWorkers);
    }
    // The engine wakes every worker for every call: when the group has no free slot, do not
    // wake them only to find that out (they would take CPU from the other members).
    if (!busy::worker_try_enter()) {
      t_is_caller = false;
      pthread_mutex_unlock(&g_run_mutex);
      run_serial(range, fn, ctx);
      busy::caller_leave();
      return;
    }
    busy::worker_leave();
  }
  if (lanes == size && range > size && !call.counted)
    api->parallelize_1d(g_engine_pool, full_width_item, &call, range, engine_flags);
  else
    api->parallelize_1d(g_engine_pool, lane, &call, lanes, engine_flags);
  if (call.counted) {
    // The engine may have handed every lane (the caller's too) to workers that found the group
    // full and returned: the caller runs what is left (no lane is running any more, so index 0
    // is free).
    ++t_task_depth;
    for (size_t i; (i = call.next.fetch_add(1, std::memory_order_relaxed)) < range;) fn(ctx, 0, i);
    --t_task_depth;
  }
  busy::caller_leave();
  t_is_caller = false;
  pthread_mutex_unlock(&g_run_mutex);
}

size_t width(size_t max_threads) {
  size_t size = pool_size();
  if (max_threads != 0 && max_threads < size) size = max_threads;
  return size == 0 ? 1 : size;
}

size_t pool_size() {
  // A pending resize is applied at the next top-level call; report the larger of the two sizes so
  // that a width read now bounds the thread indices of that call too.
  size_t s = g_size.load(std::memory_order_relaxed);
  size_t w = wanted_size();
  return s > w ? s : w;
}

bool started() { return g_size.load(std::memory_order_relaxed) > 1; }

bool in_task() { return t_task_depth > 0; }

void request_size(size_t threads) { g_target.store(threads, std::memory_order_relaxed); }

// Interim: run_ranges on top of the per-item path (replaced by the scheduler).
void run_ranges(size_t range, RangeFn fn, void* ctx, size_t max_threads, uint32_t flags) {
  struct R {
    RangeFn fn;
    void* ctx;
  } r{fn, ctx};
  run(range, [](void* p, size_t t, size_t i) { auto* x = static_cast<R*>(p); x->fn(x->ctx, t, i, i + 1); },
      &r, max_threads, flags);
}

const char* degraded_reason() { return nullptr; }
void pool_atfork_prepare() {}
void pool_atfork_parent() {}
void pool_atfork_child() {}

}  // namespace poolshim::core
