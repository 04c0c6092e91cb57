// pthreadpool handles: what pthreadpool_create() returns under poolshim. A handle is not a pool:
// it is a small heap record pointing at the one shared pool (or, for pthreadpool_create_v2, at
// the client's executor), carrying that client's request and grant.
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "abi/pthreadpool/api.h"
#include "base/fork_hooks.h"

namespace poolshim::abi {

// The process-lifetime handle (request 0 = the whole budget) that the ExecuTorch surface's
// get_pthreadpool() hands out. Created on first call; pthreadpool_destroy() refuses it. With
// POOLSHIM_DISABLE=pthreadpool it is a pool of Debian's engine instead (the passthrough).
pthreadpool_t executorch_pthreadpool();

namespace ptp {

struct Handle {
  // kLiveMagic ^ address while the handle is live, kDeadMagic ^ address after destroy. XOR with
  // the address makes a stale copy of the bytes elsewhere (e.g. a foreign pool struct that
  // happens to start with our constant) fail the check. Written by create/destroy only.
  std::atomic<uint64_t> magic;
  size_t request_id;   // core/size.h request; 0 = none (executor handles)
  size_t requested;    // n as passed to create (0 = whole budget)
  size_t max_threads;  // the count at creation: the most set_threads_count can restore
  // Threads calls through this handle may use (the grant, or what set_threads_count chose).
  // Written by set_threads_count (relaxed), read by every call.
  std::atomic<size_t> threads;
  bool permanent;  // executorch_pthreadpool(): never destroyed

  // create_v2 / update_executor. has_executor is written (release) under exec_mutex and read
  // (acquire) by calls; the executor fields are only read under exec_mutex.
  std::atomic<bool> has_executor;
  pthreadpool_executor executor;
  void* executor_context;
  pthread_mutex_t exec_mutex;  // serializes top-level calls on an executor handle

  Handle* next_free;  // free list link (destroyed handles are recycled, never freed)
  // Every handle block ever allocated (blocks are never freed), so that the child of a fork can
  // re-initialise each exec_mutex (lifecycle/fork.cpp). Written once, under the table's mutex.
  Handle* next_block;
};

enum class Kind { serial, shared, executor };

// What a call through a pthreadpool_t runs on.
struct Target {
  Kind kind;
  Handle* handle;  // nullptr for serial
  size_t threads;  // thread limit of the call (1 for serial)
};

// NULL -> serial (as the header says). A pointer that is not a live poolshim handle -> serial,
// with one warning per process (never a crash). `what` names the calling function for the log.
Target resolve_handle(pthreadpool_t pool, const char* what);  // pool != nullptr
inline Target resolve(pthreadpool_t pool, const char* what) {
  if (pool == nullptr)
    return Target{Kind::serial, nullptr, 1};  // inline: the NULL pool's fast path
  return resolve_handle(pool, what);
}

// The live handle behind pool, or nullptr (no warning).
Handle* lookup(pthreadpool_t pool);

// Lifecycle. create_* return nullptr only when memory is exhausted.
Handle* create_shared(size_t requested, size_t* grant_out);
Handle* create_with_executor(pthreadpool_executor* executor, void* context, size_t max_threads);
// Returns false (and logs why) when pool is NULL, unknown, already destroyed or permanent.
bool destroy(pthreadpool_t pool);
// set_threads_count semantics on a live handle; returns the new count.
size_t set_threads(Handle* h, size_t num_threads);

inline pthreadpool_t to_pool(Handle* h) { return reinterpret_cast<pthreadpool_t>(h); }

// fork (lifecycle/fork.cpp's table): the handle table's lock; the child also re-initialises every
// handle's exec_mutex.
POOLSHIM_FORK_HOOK void handles_atfork_prepare();
POOLSHIM_FORK_HOOK void handles_atfork_parent();
POOLSHIM_FORK_HOOK void handles_atfork_child();

}  // namespace ptp
}  // namespace poolshim::abi
