// pthreadpool lifecycle (7 functions) and the ExecuTorch handle.
//
//   pthreadpool_create(n)          a handle on the shared pool; request n (0 = whole budget)
//   pthreadpool_create_v2(e, c, n) a handle on the client's executor (pthreadpool_executor.cpp)
//   pthreadpool_get_threads_count  the handle's width now: its grant within the pool (NULL: 1)
//   pthreadpool_set_threads_count  0 = back to the creation count, else clamped to [1, it]
//   pthreadpool_release_executor_threads  no-op: executor threads are returned after every call
//   pthreadpool_update_executor    swap (or install) the executor; false when nothing changes
//   pthreadpool_destroy            releases the handle, never the pool
#include <pthread.h>

#include <atomic>

#include "abi/pthreadpool/api.h"
#include "abi/pthreadpool/handle.h"
#include "abi/pthreadpool/passthrough.h"
#include "abi/pthreadpool/run.h"
#include "base/first_use.h"
#include "base/text.h"
#include "core/size.h"
#include "diag/caller.h"
#include "diag/log.h"
#include "report/report.h"

using namespace poolshim::abi::ptp;
namespace diag = poolshim::diag;
namespace report = poolshim::report;
namespace pass = poolshim::abi::ptp::passthrough;

namespace poolshim::abi {

namespace {

// get_pthreadpool()'s handle: made on first use (never at load time) by a pthread_once routine,
// not a function-local static, so a fork during its creation leaves the child able to make it
// (base/first_use.h). g_default_ready publishes it to the hot path.
pthreadpool_t g_default = nullptr;
std::atomic<bool> g_default_ready{false};
pthread_once_t g_default_once = PTHREAD_ONCE_INIT;

pthreadpool_t make_default() {
  if (pass::active()) {
    auto create = pass::definition<pass::Fn::create>();
    return create != nullptr ? create(0) : static_cast<pthreadpool_t>(nullptr);
  }
  size_t grant = 1;
  Handle* h = create_shared(0, &grant);
  if (h == nullptr) return static_cast<pthreadpool_t>(nullptr);
  h->permanent = true;  // not yet visible to anyone else
  POOLSHIM_LOG(debug, "ExecuTorch get_pthreadpool() handle %p (grant %zu threads)",
               static_cast<void*>(h), grant);
  return to_pool(h);
}

void make_default_once() {
  poolshim::base::first_use("executorch_pthreadpool");
  g_default = make_default();
  g_default_ready.store(true, std::memory_order_release);
}

}  // namespace

pthreadpool_t executorch_pthreadpool() {
  if (__builtin_expect(!g_default_ready.load(std::memory_order_acquire), 0))
    pthread_once(&g_default_once, make_default_once);
  return g_default;
}

}  // namespace poolshim::abi

namespace {

// pthreadpool_create on the shared pool, for both exported entries that create one. Called
// directly, never through the exported symbol: a call through it would go out through the PLT
// and could land in another module's definition. `caller` is the exported function's return
// address (the module named by the first-call log).
pthreadpool_t create_on_shared_pool(size_t threads_count, const void* caller) {
  // A module creating a pool is a good moment to report the modules loaded so far (at info;
  // each module once), including those whose private copies the shim cannot reach.
  report::report_modules_once();
  size_t grant = 1;
  Handle* h = create_shared(threads_count, &grant);
  if (h == nullptr) return nullptr;
  if (diag::log_enabled(diag::LogLevel::info)) {
    char what[48];
    poolshim::base::Text(what).appendf("pthreadpool_create(%zu)", threads_count);
    diag::log_first_call(diag::LogSite::pthreadpool_create, caller, what,
                         "shared pool handle (grant %zu threads)", grant);
  }
  return to_pool(h);
}

}  // namespace

extern "C" {

pthreadpool_t pthreadpool_create(size_t threads_count) {
  if (auto library_fn = pass::forward_target<pass::Fn::create>()) return library_fn(threads_count);
  return create_on_shared_pool(threads_count, __builtin_return_address(0));
}

pthreadpool_t pthreadpool_create_v2(pthreadpool_executor* executor, void* executor_context,
                                    size_t max_num_threads) {
  if (pass::active()) {
    // Debian's 2021 engine has no executors: a pool of its own threads of the same size.
    size_t n = max_num_threads;
    if (executor != nullptr && executor->num_threads != nullptr) {
      int extra = executor->num_threads(executor_context);
      size_t cap = extra < 0 ? 1 : static_cast<size_t>(extra) + 1;
      if (n == 0 || n > cap) n = cap;
    }
    pass::note_missing("pthreadpool_create_v2", "creating a pool of its own threads instead");
    auto create = pass::definition<pass::Fn::create>();
    return create(n);
  }
  if (executor == nullptr)
    return create_on_shared_pool(max_num_threads, __builtin_return_address(0));
  Handle* h = create_with_executor(executor, executor_context, max_num_threads);
  return h != nullptr ? to_pool(h) : nullptr;
}

size_t pthreadpool_get_threads_count(pthreadpool_t pool) {
  if (auto library_fn = pass::forward_target<pass::Fn::get_threads_count>())
    return library_fn(pool);
  // The width a call on this handle may use now (the grant, narrowed by the pool's size or cap):
  // clients size per-thread buffers by it, and the core bounds this thread's next call by it.
  return width(resolve(pool, "pthreadpool_get_threads_count"));
}

size_t pthreadpool_set_threads_count(pthreadpool_t pool, size_t num_threads) {
  if (pass::active()) {
    pass::note_missing("pthreadpool_set_threads_count", "the count is unchanged");
    auto get = pass::definition<pass::Fn::get_threads_count>();
    return pool != nullptr && get != nullptr ? get(pool) : 1;
  }
  if (pool == nullptr) return 1;  // as upstream
  Handle* h = lookup(pool);
  if (h == nullptr) return resolve(pool, "pthreadpool_set_threads_count").threads;  // warns
  return set_threads(h, num_threads);
}

void pthreadpool_release_executor_threads(pthreadpool_t pool) {
  // Nothing is held between calls (see pthreadpool_executor.cpp). Still validate the handle so
  // a bad pointer is reported like everywhere else.
  if (pool != nullptr && !pass::active())
    (void)resolve(pool, "pthreadpool_release_executor_threads");
}

bool pthreadpool_update_executor(pthreadpool_t pool, pthreadpool_executor* executor,
                                 void* executor_context) {
  if (pass::active()) {
    pass::note_missing("pthreadpool_update_executor", "ignored");
    return false;
  }
  Handle* h = lookup(pool);
  if (h == nullptr || executor == nullptr) {
    if (pool != nullptr) (void)resolve(pool, "pthreadpool_update_executor");  // warns
    return false;
  }
  pthread_mutex_lock(&h->exec_mutex);  // no call on this handle's executor is running
  bool had = h->has_executor.load(std::memory_order_relaxed);
  bool changed = !had || h->executor.num_threads != executor->num_threads ||
                 h->executor.schedule != executor->schedule ||
                 h->executor_context != executor_context;
  if (changed) {
    h->executor = *executor;
    h->executor_context = executor_context;
    if (!had && h->request_id != 0) {
      // A shared-pool handle now runs on the client's threads: its request no longer applies.
      poolshim::core::release_request(h->request_id);
      h->request_id = 0;
    }
    h->has_executor.store(true, std::memory_order_release);
  }
  pthread_mutex_unlock(&h->exec_mutex);
  return changed;
}

void pthreadpool_destroy(pthreadpool_t pool) {
  if (auto library_fn = pass::forward_target<pass::Fn::destroy>()) return library_fn(pool);
  (void)destroy(pool);
}

}  // extern "C"
