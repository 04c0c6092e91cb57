// pthreadpool handles (see pthreadpool_handle.h).
//
// Memory: a destroyed handle is poisoned and put on a FIFO free list instead of being returned to
// malloc. A double destroy, or a call through a destroyed handle, then reads our poison rather
// than allocator metadata and is reported; the list never grows beyond the peak number of live
// handles (PyTorch re-creates its pool on every set_num_threads, new before old is destroyed).
#include "abi/pthreadpool/handle.h"

#include <new>

#include "base/fork_hooks.h"
#include "budget/budget.h"
#include "core/size.h"
#include "diag/log.h"

namespace poolshim::abi::ptp {
namespace {

constexpr uint64_t kLiveMagic = 0x70747070'6c697665ull;  // "ptpplive"
constexpr uint64_t kDeadMagic = 0x70747070'64656164ull;  // "ptppdead"

inline uint64_t live_magic(const Handle* h) { return kLiveMagic ^ reinterpret_cast<uintptr_t>(h); }
inline uint64_t dead_magic(const Handle* h) { return kDeadMagic ^ reinterpret_cast<uintptr_t>(h); }

// The handle table: the free list and the list of every block. Enrolled in lifecycle/fork.cpp.
pthread_mutex_t& g_free_mutex = base::g_fork_locks.ptp_handles;  // base/fork_hooks.h
Handle* g_free_head = nullptr;  // oldest destroyed handle (reused first)
Handle* g_free_tail = nullptr;  // newest
Handle* g_blocks = nullptr;     // every block, newest first (next_block)

std::atomic<bool> g_warned_unknown{false};

Handle* allocate() {
  pthread_mutex_lock(&g_free_mutex);
  Handle* h = g_free_head;
  if (h != nullptr) {
    g_free_head = h->next_free;
    if (g_free_head == nullptr) g_free_tail = nullptr;
  }
  pthread_mutex_unlock(&g_free_mutex);
  if (h == nullptr) {
    h = static_cast<Handle*>(::operator new(sizeof(Handle), std::nothrow));
    if (h == nullptr) return nullptr;
    new (h) Handle();
    pthread_mutex_init(&h->exec_mutex, nullptr);  // once per memory block; never destroyed
    pthread_mutex_lock(&g_free_mutex);
    h->next_block = g_blocks;
    g_blocks = h;
    pthread_mutex_unlock(&g_free_mutex);
  }
  h->request_id = 0;
  h->requested = 0;
  h->max_threads = 1;
  h->threads.store(1, std::memory_order_relaxed);
  h->permanent = false;
  h->has_executor.store(false, std::memory_order_relaxed);
  h->executor = pthreadpool_executor{nullptr, nullptr};
  h->executor_context = nullptr;
  h->next_free = nullptr;
  return h;
}

void recycle(Handle* h) {
  pthread_mutex_lock(&g_free_mutex);
  h->next_free = nullptr;
  if (g_free_tail != nullptr)
    g_free_tail->next_free = h;
  else
    g_free_head = h;
  g_free_tail = h;
  pthread_mutex_unlock(&g_free_mutex);
}

void publish(Handle* h) { h->magic.store(live_magic(h), std::memory_order_release); }

}  // namespace

// fork (lifecycle/fork.h). The handles stay valid in the child (its clients still hold them), and
// calls through them use the child's pool. Each exec_mutex is re-initialised rather than taken
// before fork: it is held across a whole call on a client's executor (client code that may fork
// itself), and that call cannot go on in the child, whose copy of the executor has no threads.
void handles_atfork_prepare() {
  pthread_mutex_lock(&g_free_mutex);
  base::map_for_children(g_blocks);
}
void handles_atfork_parent() { pthread_mutex_unlock(&g_free_mutex); }
void handles_atfork_child() {
  pthread_mutex_unlock(&g_free_mutex);
  for (Handle* h = g_blocks; h != nullptr; h = h->next_block)
    pthread_mutex_init(&h->exec_mutex, nullptr);
}

Handle* lookup(pthreadpool_t pool) {
  auto* h = reinterpret_cast<Handle*>(pool);
  if (h == nullptr) return nullptr;
  // Reading the first word of a foreign pointer is safe for what clients pass here: a pool
  // object of some pthreadpool copy (a live heap block), never an arbitrary address.
  if (h->magic.load(std::memory_order_acquire) != live_magic(h)) return nullptr;
  return h;
}

Target resolve_handle(pthreadpool_t pool, const char* what) {
  Handle* h = lookup(pool);
  if (h == nullptr) {
    bool dead = reinterpret_cast<Handle*>(pool)->magic.load(std::memory_order_relaxed) ==
                dead_magic(reinterpret_cast<Handle*>(pool));
    if (!g_warned_unknown.exchange(true, std::memory_order_relaxed))
      POOLSHIM_LOG(warn, "%s: %p is %s; running serially on the caller", what,
                   static_cast<void*>(pool),
                   dead ? "a destroyed pthreadpool handle"
                        : "not a poolshim pthreadpool handle "
                          "(a pool of another pthreadpool copy?)");
    return Target{Kind::serial, nullptr, 1};
  }
  size_t threads = h->threads.load(std::memory_order_relaxed);
  Kind kind = h->has_executor.load(std::memory_order_acquire) ? Kind::executor : Kind::shared;
  return Target{kind, h, threads == 0 ? 1 : threads};
}

Handle* create_shared(size_t requested, size_t* grant_out) {
  Handle* h = allocate();
  if (h == nullptr) return nullptr;
  size_t grant = 1;
  h->request_id = core::add_request(requested, &grant);
  if (grant == 0) grant = 1;
  h->requested = requested;
  h->max_threads = grant;
  h->threads.store(grant, std::memory_order_relaxed);
  publish(h);
  if (grant_out) *grant_out = grant;
  POOLSHIM_LOG(debug, "pthreadpool handle %p: request %zu -> grant %zu", static_cast<void*>(h),
               requested, grant);
  return h;
}

Handle* create_with_executor(pthreadpool_executor* executor, void* context, size_t max_threads) {
  Handle* h = allocate();
  if (h == nullptr) return nullptr;
  // The header: min(max_num_threads, executor threads + the calling thread); 0 = "all
  // processors", which for poolshim is the budget. The executor's threads are the client's own,
  // so no request is made on the shared pool.
  size_t n = max_threads == 0 ? budget::current().threads : max_threads;
  int extra = executor->num_threads != nullptr ? executor->num_threads(context) : 0;
  size_t cap = extra < 0 ? 1 : static_cast<size_t>(extra) + 1;
  if (n > cap) n = cap;
  if (n == 0) n = 1;
  h->requested = max_threads;
  h->max_threads = n;
  h->threads.store(n, std::memory_order_relaxed);
  h->executor = *executor;
  h->executor_context = context;
  h->has_executor.store(true, std::memory_order_release);
  publish(h);
  POOLSHIM_LOG(info, "pthreadpool_create_v2(max %zu): handle on the client's executor, %zu threads",
               max_threads, n);
  return h;
}

bool destroy(pthreadpool_t pool) {
  if (pool == nullptr) return false;  // the header allows destroying NULL: nothing to do
  auto* h = reinterpret_cast<Handle*>(pool);
  uint64_t expected = live_magic(h);
  if (h->magic.load(std::memory_order_acquire) != expected) {
    bool dead = h->magic.load(std::memory_order_relaxed) == dead_magic(h);
    POOLSHIM_LOG(
        warn, "pthreadpool_destroy(%p): %s; ignored", static_cast<void*>(pool),
        dead ? "handle already destroyed (double destroy)" : "not a poolshim pthreadpool handle");
    return false;
  }
  if (h->permanent) {
    POOLSHIM_LOG(warn,
                 "pthreadpool_destroy(%p): the ExecuTorch get_pthreadpool() handle lives as "
                 "long as the process; ignored",
                 static_cast<void*>(pool));
    return false;
  }
  // Poison first (one winner if two threads race to destroy the same handle).
  if (!h->magic.compare_exchange_strong(expected, dead_magic(h), std::memory_order_acq_rel))
    return false;
  // Wait out a call that is still running on an executor handle (the client must not destroy a
  // pool in use, but if it does, the executor job must not lose its handle mid-call).
  pthread_mutex_lock(&h->exec_mutex);
  pthread_mutex_unlock(&h->exec_mutex);
  if (h->request_id != 0) core::release_request(h->request_id);
  POOLSHIM_LOG(debug, "pthreadpool handle %p destroyed", static_cast<void*>(h));
  recycle(h);
  return true;
}

size_t set_threads(Handle* h, size_t num_threads) {
  // The header: 0 = the count the pool was created with; otherwise clamped to [1, that count].
  size_t n = num_threads == 0 ? h->max_threads : num_threads;
  if (n > h->max_threads) n = h->max_threads;
  if (n == 0) n = 1;
  if (h->request_id != 0) {
    // Keep the negotiation informed: the pool follows the largest live request.
    size_t grant = n;
    core::update_request(h->request_id, n == h->max_threads ? h->requested : n, &grant);
    if (grant != 0 && grant < n) n = grant;
  }
  h->threads.store(n, std::memory_order_relaxed);
  return n;
}

}  // namespace poolshim::abi::ptp
