// The ExecuTorch surface's behaviour. Rules (docs/design.md, docs/interposition.md):
// - get_threadpool() returns the shim's own object; members called on it run on the one pool.
// - Members called on any other object (a private ThreadPool a legacy module built itself) go to
//   the caller module's own code: the shim never reads or writes an object it did not create.
// - Nothing reachable from a nested call waits on a lock: run() on the shared object takes none
//   (core::run goes inline inside a task) and get_thread_count() reads an atomic.
#include "abi/executorch/surface.h"
#include "core/tls.h"

#include <pthread.h>

#include <atomic>

#include "abi/executorch/forward.h"
#include "core/size.h"
#include "core/pool.h"
#include "diag/caller.h"
#include "diag/log.h"
#include "config/options.h"
#include "poolshim/poolshim.h"
#include "abi/pthreadpool/handle.h"
#include "report/report.h"
#include "reach/query.h"

namespace poolshim::abi {
namespace {

// The object handed out by get_threadpool(). Zero-filled and larger than any ExecuTorch
// ThreadPool layout: legacy code inlined into a module that peeks at the fields (a std::mutex
// first, then a unique_ptr) sees an unlocked mutex and null pointers, never garbage.
alignas(64) unsigned char g_shared_object[256];

// The executorch component's grant (threads its calls may use). Written by negotiate() and
// _unsafe_reset_threadpool (release), read by every run/get_thread_count (acquire). 0 = not yet.
std::atomic<size_t> g_grant{0};
pthread_once_t g_negotiate_once = PTHREAD_ONCE_INIT;

// Set while get_pthreadpool() is forwarded to a module's own definition: that module's nested
// call to get_threadpool() must get its own pool back (see et_get_pthreadpool).
POOLSHIM_FAST_TLS thread_local const void* t_forwarding_base = nullptr;

constexpr const char* kComponent = "executorch";

void negotiate() {
  size_t expected = 0;
  size_t grant = core::request_threads(kComponent, 0);  // legacy pools size to the whole machine
  g_grant.compare_exchange_strong(expected, grant, std::memory_order_release);
}

size_t grant() {
  pthread_once(&g_negotiate_once, negotiate);
  return g_grant.load(std::memory_order_acquire);
}

bool is_ours(const void* self) { return self == g_shared_object; }

bool disabled() { return (config::options().disabled & config::kSurfaceExecutorch) != 0; }

template <typename Fn>
Fn own(EtSym sym, const void* ret) {
  return reinterpret_cast<Fn>(own_definition(sym, ret));
}

// Foreign object with no definition in the caller's module (cannot happen for a module that
// built the object itself): the object is unknown, so it is neither read nor written.
void warn_no_definition(EtSym sym, const void* ret) {
  diag::warn_first_call(diag::LogSite::et_foreign_without_definition, ret, et_symbol(sym).demangled,
                        "%s",
                        "called on an object poolshim did not create, but the caller has no "
                        "definition of its own; running on the shared pool");
}

struct IndexTask {
  void (*call)(const void* fn, size_t i);
  const void* fn;
};

// Every ExecuTorch task runs with NoThreadPoolGuard enabled, as the legacy run() does, so legacy
// code inside a task that checks the guard runs its nested work serially. The flag is set once
// per run of items (not per item) and restored when the run ends, also when a task throws: a
// destructor, so no unwinding leaves it set on a pool thread or on the caller.
struct GuardScope {
  bool prev;
  GuardScope() : prev(poolshim_et_guard_flag) { poolshim_et_guard_flag = true; }
  ~GuardScope() { poolshim_et_guard_flag = prev; }
  GuardScope(const GuardScope&) = delete;
  GuardScope& operator=(const GuardScope&) = delete;
};

void index_run(void* ctx, size_t /*thread_index*/, size_t begin, core::Run& run) {
  auto* t = static_cast<IndexTask*>(ctx);
  GuardScope guard;
  const auto call = t->call;
  const void* const fn = t->fn;
  core::Taker taker(run);
  for (size_t i = begin; taker.take(i); ++i) call(fn, i);
}

// An exception escaping a task: the core catches it where it is thrown, skips the items nobody
// has claimed yet, and rethrows the first one here, on the calling thread
// (docs/pthreadpool-coverage.md, "Exceptions and unwinding", covers both surfaces).
void run_on_pool(IndexTask task, size_t range) {
  if (poolshim_et_guard_flag) {  // inside a guard: serial on the caller, as the legacy code does
    for (size_t i = 0; i < range; ++i) task.call(task.fn, i);
    return;
  }
  core::run_ranges(range, index_run, &task, grant(), 0, core::work_of(task.call, task.fn));
}

}  // namespace

void* et_get_threadpool(EtSym sym, const void* ret) {
  if (disabled() || (t_forwarding_base != nullptr && diag::caller_base(ret) == t_forwarding_base)) {
    if (auto f = own<void* (*)()>(sym, ret)) return f();
  }
  size_t g = grant();
  if (diag::log_enabled(diag::LogLevel::info)) {  // the hot path pays one branch for logging
    report::report_modules_once();
    bool torch = sym == EtSym::torch_get_threadpool;
    diag::log_first_call(
        torch ? diag::LogSite::torch_get_threadpool : diag::LogSite::et_get_threadpool, ret,
        torch ? "executorch (torch:: namespace) get_threadpool()" : "executorch get_threadpool()",
        "shared pool (%zu threads)", core::peek_width(g));
  }
  return g_shared_object;
}

void* et_get_pthreadpool(EtSym sym, const void* ret) {
  if (poolshim_et_guard_flag) return nullptr;  // legacy contract: no pool inside a guard
  report::report_modules_once();
  auto own_fn = own<void* (*)()>(sym, ret);
  if (disabled()) return own_fn != nullptr ? own_fn() : nullptr;

  // The handle is safe only for a module whose own pthreadpool calls reach the shim. When the
  // return address is not in a module with a get_pthreadpool() of its own, the legacy code got
  // here through a tail call and the real caller is unknown: hand out the handle only if no
  // loaded ExecuTorch module carries a pthreadpool copy the shim cannot reach.
  bool caller_known = own_fn != nullptr;
  bool reaches = caller_known ? reach::pthreadpool_calls_reach_shim(ret)
                              : !reach::executorch_module_with_unreachable_pthreadpool_loaded();
  if (reaches) {
    diag::log_first_call(diag::LogSite::et_get_pthreadpool_shared, ret,
                         "executorch get_pthreadpool()", "shared pool handle (%zu threads)",
                         core::peek_width(grant()));
    return executorch_pthreadpool();
  }
  if (!caller_known) {
    diag::log_first_call(diag::LogSite::et_get_pthreadpool_serial, ret,
                         "executorch get_pthreadpool()", "%s",
                         "NULL (serial): caller unknown and a module with a private "
                         "pthreadpool copy is loaded");
    return nullptr;  // NULL makes every pthreadpool copy run serially: never misread
  }
  // The module's pthreadpool calls do not reach the shim (a private, hidden copy): a shim handle
  // would be misread by that copy. Give the module its original behaviour: its own
  // get_pthreadpool(), whose internal get_threadpool() call is routed back to its own pool.
  diag::warn_first_call(diag::LogSite::et_private_pthreadpool, ret, et_symbol(sym).demangled, "%s",
                        "its pthreadpool calls do not reach poolshim; it keeps its own private "
                        "pthreadpool");
  const void* prev = t_forwarding_base;
  t_forwarding_base = diag::caller_base(ret);
  void* result = own_fn();
  t_forwarding_base = prev;
  return result;
}

void et_run_fnref(EtSym sym, const void* ret, void* self, FunctionRefIndex fn, size_t range) {
  if (!is_ours(self)) {
    if (auto f = own<void (*)(void*, FunctionRefIndex, size_t)>(sym, ret))
      return f(self, fn, range);
    warn_no_definition(sym, ret);
  }
  IndexTask task{[](const void* p, size_t i) {
                   auto* r = static_cast<const FunctionRefIndex*>(p);
                   r->callback(r->callable, i);
                 },
                 &fn};
  run_on_pool(task, range);
}

void et_run_stdfn(EtSym sym, const void* ret, void* self, const StdFunctionIndex& fn,
                  size_t range) {
  if (!is_ours(self)) {
    if (auto f = own<void (*)(void*, const StdFunctionIndex&, size_t)>(sym, ret))
      return f(self, fn, range);
    warn_no_definition(sym, ret);
  }
  IndexTask task{[](const void* p, size_t i) { (*static_cast<const StdFunctionIndex*>(p))(i); },
                 &fn};
  run_on_pool(task, range);
}

size_t et_get_thread_count(EtSym sym, const void* ret, const void* self) {
  if (!is_ours(self)) {
    if (auto f = own<size_t (*)(const void*)>(sym, ret)) return f(self);
    warn_no_definition(sym, ret);
  }
  return core::width(grant());
}

bool et_reset_threadpool(EtSym sym, const void* ret, void* self, uint32_t threads) {
  if (!is_ours(self)) {
    if (auto f = own<bool (*)(void*, uint32_t)>(sym, ret)) return f(self, threads);
    warn_no_definition(sym, ret);
    return false;
  }
  // The shared pool is never destroyed under its other users: a reset is this component's new
  // size request, applied between calls.
  if (threads == 0) return true;
  grant();  // make sure the initial negotiation cannot overwrite this request later
  size_t g = core::request_threads(kComponent, threads);
  g_grant.store(g, std::memory_order_release);
  POOLSHIM_LOG(info, "executorch _unsafe_reset_threadpool(%u) from %s -> request %u, granted %zu",
               threads, diag::caller_module(ret), threads, g);
  return true;
}

void et_destroy_threadpool(EtSym sym, const void* ret, void* self) {
  if (!is_ours(self)) {
    if (auto f = own<void (*)(void*)>(sym, ret)) return f(self);
    warn_no_definition(sym, ret);
    return;
  }
  POOLSHIM_LOG(info,
               "executorch _unsafe_destroy_threadpool() from %s ignored: the shared pool "
               "is never destroyed under its other users",
               diag::caller_module(ret));
}

bool et_parallel_for(int64_t begin, int64_t end, int64_t grain, FunctionRefRange fn) {
  if (begin < 0 || end < 0 || end < begin || grain <= 0) {
    POOLSHIM_LOG(warn, "parallel_for(%lld, %lld, grain %lld): invalid range, nothing run",
                 static_cast<long long>(begin), static_cast<long long>(end),
                 static_cast<long long>(grain));
    return false;
  }
  if (begin == end) return true;
  if (poolshim_et_guard_flag) {
    fn.callback(fn.callable, begin, end);
    return true;
  }
  // Same chunking as ExecuTorch: one chunk per thread, no chunk smaller than the grain.
  int64_t span = end - begin;
  int64_t threads = static_cast<int64_t>(core::peek_width(grant()));
  int64_t chunk = span / threads + (span % threads != 0);  // ceil, without overflow near INT64_MAX
  if (chunk < grain) chunk = grain;
  int64_t tasks = span / chunk + (span % chunk != 0);

  struct Chunks {
    FunctionRefRange fn;
    int64_t begin, end, chunk;
  } ctx{fn, begin, end, chunk};
  // One run of chunks on one thread, the guard as in run(). get_thread_num() is the chunk's id, as
  // ExecuTorch's own parallel_for sets it: kernels may keep one partial result per id. There are
  // at most as many chunks as the width read above, so every id is below it.
  auto chunk_run = [](void* p, size_t, size_t first, core::Run& run) {
    auto* c = static_cast<const Chunks*>(p);
    GuardScope guard;
    core::Taker taker(run);
    for (size_t id = first; taker.take(id); ++id) {
      poolshim_et_thread_num = static_cast<int64_t>(id);
      int64_t lo = c->begin + static_cast<int64_t>(id) * c->chunk;
      if (lo >= c->end) return;
      int64_t hi = c->end - lo > c->chunk ? lo + c->chunk : c->end;
      c->fn.callback(c->fn.callable, lo, hi);
    }
  };
  core::run_ranges(static_cast<size_t>(tasks), chunk_run, &ctx, grant(), 0,
                   core::work_of(fn.callback, reinterpret_cast<const void*>(fn.callable)));
  return true;
}

}  // namespace poolshim::abi
