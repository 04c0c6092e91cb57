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
#include <pthread.h>

#include <atomic>
#include <new>

#include "abi/pthreadpool_run.h"
#include "core/tls.h"
#include "diag/log.h"

namespace poolshim::abi::ptp {
namespace {

POOLSHIM_FAST_TLS thread_local unsigned t_executor_depth = 0;

struct Job {
  // Reference count: the caller plus one per scheduled task. The last release deletes the job.
  std::atomic<size_t> refs;
  core::TaskFn fn;
  void* ctx;
  size_t range;
  uint32_t flags;
  size_t width;  // participants allowed: thread indices 0 (caller) .. width-1
  // Claimed by fetch_add from any participant (relaxed: the items are independent; completion
  // is published through `done`).
  std::atomic<size_t> next_item{0};
  // Thread indices for scheduled participants; 0 is the caller's.
  std::atomic<size_t> next_thread{1};
  // Items finished. Each participant adds its count once, with release, after its last item;
  // the caller reads it with acquire, so every item's effects are visible when it returns.
  std::atomic<size_t> done{0};
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;  // fork: see core/fork.cpp (not enrolled: per call)
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
};

void release(Job* job) {
  if (job->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    pthread_mutex_destroy(&job->mutex);
    pthread_cond_destroy(&job->cond);
    delete job;
  }
}

void participate(Job* job, size_t thread_index) {
  DenormalsGuard guard(job->flags);
  ++t_executor_depth;
  size_t finished = 0;
  for (size_t i; (i = job->next_item.fetch_add(1, std::memory_order_relaxed)) < job->range;) {
    job->fn(job->ctx, thread_index, i);
    ++finished;
  }
  --t_executor_depth;
  if (finished == 0) return;
  if (job->done.fetch_add(finished, std::memory_order_acq_rel) + finished == job->range) {
    pthread_mutex_lock(&job->mutex);
    pthread_cond_broadcast(&job->cond);
    pthread_mutex_unlock(&job->mutex);
  }
}

// Entry point of a task scheduled on the client's executor.
void scheduled_entry(void* p) {
  auto* job = static_cast<Job*>(p);
  size_t tid = job->next_thread.fetch_add(1, std::memory_order_relaxed);
  if (tid < job->width && job->next_item.load(std::memory_order_relaxed) < job->range)
    participate(job, tid);
  release(job);
}

}  // namespace

bool in_executor_task() { return t_executor_depth > 0; }

size_t executor_width(Handle* h) {
  size_t n = h->threads.load(std::memory_order_relaxed);
  int extra = h->executor.num_threads != nullptr ? h->executor.num_threads(h->executor_context) : 0;
  size_t cap = extra < 0 ? 1 : static_cast<size_t>(extra) + 1;
  if (n > cap) n = cap;
  return n == 0 ? 1 : n;
}

void run_on_executor(Handle* h, size_t range, core::TaskFn fn, void* ctx, uint32_t flags) {
  // One call at a time per handle, as upstream serializes calls on one pool (clients size
  // per-thread scratch by thread index and rely on it).
  pthread_mutex_lock(&h->exec_mutex);
  size_t width = executor_width(h);
  if (width > range) width = range;
  Job* job = width > 1 && h->executor.schedule != nullptr ? new (std::nothrow) Job() : nullptr;
  if (job == nullptr) {
    pthread_mutex_unlock(&h->exec_mutex);
    ++t_executor_depth;
    for (size_t i = 0; i < range; ++i) fn(ctx, 0, i);
    --t_executor_depth;
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

  participate(job, 0);
  if (job->done.load(std::memory_order_acquire) != range) {
    pthread_mutex_lock(&job->mutex);
    while (job->done.load(std::memory_order_acquire) != range)
      pthread_cond_wait(&job->cond, &job->mutex);
    pthread_mutex_unlock(&job->mutex);
  }
  release(job);
  pthread_mutex_unlock(&h->exec_mutex);
}

}  // namespace poolshim::abi::ptp
