// Calls on a pthreadpool_create_v2() handle: the client supplied its own threads (a
// pthreadpool_executor), so the header's contract is honoured literally: each call schedules at
// most min(threads, executor->num_threads()) tasks on the executor, and the calling thread works
// too. The shared pool is not involved.
//
// A job lives on the heap with a reference count, not on the caller's stack: a scheduled task
// may start long after the call returned (the executor's threads were busy). Such a late task
// finds no item left and just drops its reference. The caller never waits for a task that has
// not claimed an item, so an executor that runs tasks late (or on the caller's own thread, after
// the call) cannot deadlock us: unclaimed items are done by the caller itself.
//
// Borrowed threads are given back at the end of every call, which makes
// pthreadpool_release_executor_threads() a no-op.
//
// An exception escaping a task (C++ callbacks; see docs/pthreadpool-coverage.md, "Exceptions and
// unwinding") is caught on the thread that threw it; the items nobody has claimed yet are
// skipped, the caller waits for the claimed ones, and the first exception is rethrown on the
// calling thread once the handle's mutex is released. A forced unwind (pthread_cancel,
// pthread_exit inside a task) is never swallowed: on an executor thread it retires its items and
// continues unwinding; on the caller it waits for the claimed items, then continues unwinding.
#include <cxxabi.h>
#include <pthread.h>

#include <atomic>
#include <exception>
#include <new>

#include "abi/pthreadpool/run.h"
#include "core/tls.h"
#include "diag/log.h"

namespace poolshim::abi::ptp {

POOLSHIM_FAST_TLS thread_local unsigned t_executor_depth = 0;  // run.h

namespace {

struct DepthScope {
  DepthScope() { ++t_executor_depth; }
  ~DepthScope() { --t_executor_depth; }
};

struct Job {
  // Reference count: the caller plus one per scheduled task. The last release deletes the job.
  std::atomic<size_t> refs;
  core::RangeFn fn;
  void* ctx;
  size_t range;
  uint32_t flags;
  size_t width;  // participants allowed: thread indices 0 (caller) .. width-1
  // Claimed by fetch_add from any participant (relaxed: the items are independent; completion
  // is published through `retired`).
  std::atomic<size_t> next_item{0};
  // Thread indices for scheduled participants; 0 is the caller's.
  std::atomic<size_t> next_thread{1};
  // Items finished, skipped or thrown by. Each participant adds its count once, with release,
  // after its last item; the caller reads it with acquire, so every item's effects are visible
  // when it returns.
  std::atomic<size_t> retired{0};
  pthread_mutex_t mutex =
      PTHREAD_MUTEX_INITIALIZER;  // fork: see lifecycle/fork.cpp (not enrolled: per call)
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  std::exception_ptr error;  // the first exception a task threw (under mutex)

  // Claims every item nobody has claimed yet; returns how many.
  size_t skip_rest() {
    size_t was = next_item.exchange(range, std::memory_order_relaxed);
    return was < range ? range - was : 0;
  }
  void retire(size_t n) {
    if (n == 0) return;
    if (retired.fetch_add(n, std::memory_order_acq_rel) + n == range) {
      pthread_mutex_lock(&mutex);
      pthread_cond_broadcast(&cond);
      pthread_mutex_unlock(&mutex);
    }
  }
  void wait_all() {
    if (retired.load(std::memory_order_acquire) == range) return;
    pthread_mutex_lock(&mutex);
    while (retired.load(std::memory_order_acquire) != range) pthread_cond_wait(&cond, &mutex);
    pthread_mutex_unlock(&mutex);
  }
};

void release(Job* job) {
  if (job->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    pthread_mutex_destroy(&job->mutex);
    pthread_cond_destroy(&job->cond);
    delete job;
  }
}

// Runs claimed items until none is left. Exceptions: see the file comment.
// no_sanitize("null"): see core/join.cpp worker_share (the forced unwind's catch).
__attribute__((noinline, no_sanitize("null"))) void participate(Job* job, size_t thread_index) {
  DenormalsGuard guard(job->flags);
  DepthScope depth;
  size_t done = 0;
  try {
    for (size_t i; (i = job->next_item.fetch_add(1, std::memory_order_relaxed)) < job->range;) {
      core::Run one(i, i + 1);  // one item at a time: nothing to steal
      job->fn(job->ctx, thread_index, i, one);
      ++done;
    }
  } catch (::abi::__forced_unwind&) {
    job->retire(done + 1 + job->skip_rest());
    throw;
  } catch (...) {
    pthread_mutex_lock(&job->mutex);
    if (!job->error) job->error = std::current_exception();
    pthread_mutex_unlock(&job->mutex);
    done += 1 + job->skip_rest();
  }
  job->retire(done);
}

// Entry point of a task scheduled on the client's executor.
void scheduled_entry(void* p) {
  auto* job = static_cast<Job*>(p);
  struct Release {
    Job* job;
    ~Release() { release(job); }
  } r{job};
  size_t tid = job->next_thread.fetch_add(1, std::memory_order_relaxed);
  if (tid < job->width && job->next_item.load(std::memory_order_relaxed) < job->range)
    participate(job, tid);
}

}  // namespace

size_t executor_width(Handle* h) {
  size_t n = h->threads.load(std::memory_order_relaxed);
  int extra = h->executor.num_threads != nullptr ? h->executor.num_threads(h->executor_context) : 0;
  size_t cap = extra < 0 ? 1 : static_cast<size_t>(extra) + 1;
  if (n > cap) n = cap;
  return n == 0 ? 1 : n;
}

void run_on_executor(Handle* h, size_t range, core::RangeFn fn, void* ctx, uint32_t flags) {
  // One call at a time per handle, as upstream serializes calls on one pool (clients size
  // per-thread scratch by thread index and rely on it). Released on unwind too.
  struct Lock {
    pthread_mutex_t* m;
    explicit Lock(pthread_mutex_t* mu) : m(mu) { pthread_mutex_lock(m); }
    ~Lock() {
      if (m) pthread_mutex_unlock(m);
    }
    void unlock() {
      pthread_mutex_unlock(m);
      m = nullptr;
    }
  } lock(&h->exec_mutex);
  size_t width = executor_width(h);
  if (width > range) width = range;
  Job* job = width > 1 && h->executor.schedule != nullptr ? new (std::nothrow) Job() : nullptr;
  if (job == nullptr) {
    lock.unlock();
    DepthScope depth;
    core::Run run(0, range);
    fn(ctx, 0, 0, run);
    return;
  }
  job->fn = fn;
  job->ctx = ctx;
  job->range = range;
  job->flags = flags;
  job->width = width;
  job->refs.store(width, std::memory_order_relaxed);  // caller + (width - 1) scheduled tasks
  for (size_t k = 1; k < width; ++k)
    h->executor.schedule(h->executor_context, job, scheduled_entry);

  std::exception_ptr error;
  {
    // Whatever happens on the caller (a forced unwind), no claimed item may still be running
    // on ctx, which lives on the caller's stack, when this frame is left.
    struct Finish {
      Job* job;
      ~Finish() {
        job->wait_all();
        release(job);
      }
    } finish{job};
    participate(job, 0);
    job->wait_all();
    error = job->error;  // every participant has retired: no one writes it any more
  }
  lock.unlock();
  if (error) std::rethrow_exception(error);
}

}  // namespace poolshim::abi::ptp
