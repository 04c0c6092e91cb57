// The size policy (see size.h): the grants (a mutex and a small table: never on a hot path),
// then the pool's size, the cap and the width of a call.
#include "core/size.h"

#include <pthread.h>
#include <string.h>

#include <vector>

#include "base/fork_hooks.h"
#include "budget/budget.h"
#include "core/busy.h"
#include "core/pool.h"
#include "diag/log.h"

namespace poolshim::core {
namespace {

struct Request {
  size_t id;       // 0 for named components
  char name[64];   // "" for anonymous handles
  size_t threads;  // as asked; 0 = whole budget
};

// Enrolled in lifecycle/fork.cpp (taken before fork, unlocked in the child).
pthread_mutex_t& g_mutex = base::g_fork_locks.size_grants;  // base/fork_hooks.h

void lock() { pthread_mutex_lock(&g_mutex); }
// Under g_mutex, like every use. Leaked on purpose: requests may be made from static destructors
// after this TU's would run. Created under the mutex, not as a function-local static: a fork
// inside a static's initialisation leaves its guard locked in the child (base/first_use.h),
// while the mutex is taken by the fork table's prepare hook.
std::vector<Request>* g_requests = nullptr;
std::vector<Request>& requests() {
  if (g_requests == nullptr) g_requests = new std::vector<Request>();
  return *g_requests;
}
size_t g_next_id = 1;

// Under g_mutex: the pool follows the largest grant (the budget when nobody asked).
void resize_pool_locked() {
  size_t budget = budget::current().threads;
  size_t want = 0;
  for (const Request& r : requests()) {
    size_t g = grant_for(r.threads);
    if (g > want) want = g;
  }
  request_size(want == 0 || want > budget ? budget : want);
}

}  // namespace

// fork (lifecycle/fork.h): the requests are the child's too (its handles and components still
// exist).
void grants_atfork_prepare() { pthread_mutex_lock(&g_mutex); }
void grants_atfork_parent() { pthread_mutex_unlock(&g_mutex); }
void grants_atfork_child() { pthread_mutex_unlock(&g_mutex); }

size_t grant_for(size_t threads) {
  size_t budget = budget::current().threads;
  if (threads == 0 || threads > budget) return budget;
  return threads;
}

size_t request_threads(const char* component, size_t threads) {
  const char* name = component ? component : "default";
  lock();
  Request* found = nullptr;
  for (Request& r : requests())
    if (r.id == 0 && strncmp(r.name, name, sizeof r.name - 1) == 0) found = &r;
  if (found == nullptr) {
    Request r{};
    strncpy(r.name, name, sizeof r.name - 1);
    requests().push_back(r);
    found = &requests().back();
  }
  found->threads = threads;
  size_t grant = grant_for(threads);
  resize_pool_locked();
  pthread_mutex_unlock(&g_mutex);
  POOLSHIM_LOG(info, "component '%s' asked for %zu threads -> granted %zu (budget %zu)", name,
               threads, grant, budget::current().threads);
  return grant;
}

void release_threads(const char* component) {
  const char* name = component ? component : "default";
  lock();
  auto& rs = requests();
  for (size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].id == 0 && strncmp(rs[i].name, name, sizeof rs[i].name - 1) == 0) {
      rs.erase(rs.begin() + static_cast<long>(i));
      break;
    }
  }
  resize_pool_locked();
  pthread_mutex_unlock(&g_mutex);
}

size_t add_request(size_t threads, size_t* grant_out) {
  lock();
  Request r{};
  r.id = g_next_id++;
  r.threads = threads;
  requests().push_back(r);
  resize_pool_locked();
  pthread_mutex_unlock(&g_mutex);
  if (grant_out) *grant_out = grant_for(threads);
  return r.id;
}

void update_request(size_t id, size_t threads, size_t* grant_out) {
  lock();
  for (Request& r : requests())
    if (r.id == id) r.threads = threads;
  resize_pool_locked();
  pthread_mutex_unlock(&g_mutex);
  if (grant_out) *grant_out = grant_for(threads);
}

void release_request(size_t id) {
  lock();
  auto& rs = requests();
  for (size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].id == id) {
      rs.erase(rs.begin() + static_cast<long>(i));
      break;
    }
  }
  resize_pool_locked();
  pthread_mutex_unlock(&g_mutex);
}

size_t live_requests() {
  lock();
  size_t n = requests().size();
  pthread_mutex_unlock(&g_mutex);
  return n;
}

// --- The pool's size, the cap, the budget in force, the width of a call (size.h) ---

namespace size_policy {
std::atomic<size_t> g_target{0};
std::atomic<size_t> g_cap{0};
__thread size_t t_read_width = 0;
}  // namespace size_policy

using size_policy::budget_in_force;
using size_policy::computed_budget;
using size_policy::current_size;

size_t width(size_t max_threads) {
  size_t w = current_size();
  if (max_threads != 0 && max_threads < w) w = max_threads;
  if (w == 0) w = 1;
  if (!in_task()) size_policy::t_read_width = w;
  return w;
}

size_t peek_width(size_t max_threads) {
  size_t w = current_size();
  if (max_threads != 0 && max_threads < w) w = max_threads;
  size_t read = size_policy::t_read_width;
  if (read != 0 && read < w) w = read;
  return w == 0 ? 1 : w;
}

size_t pool_size() { return current_size(); }

void request_size(size_t threads) {
  size_policy::g_target.store(threads, std::memory_order_relaxed);
}

size_t set_cap(size_t threads) {
  size_policy::g_cap.store(threads, std::memory_order_relaxed);
  size_t b = budget_in_force();
  busy::set_limit(b);
  if (threads != 0)
    POOLSHIM_LOG(info, "budget capped at %zu (computed %zu): %zu in force", threads,
                 computed_budget(), b);
  else
    POOLSHIM_LOG(info, "budget cap removed: %zu in force", b);
  return b;
}

size_t cap() { return size_policy::g_cap.load(std::memory_order_relaxed); }

size_t budget() { return budget_in_force(); }

}  // namespace poolshim::core
