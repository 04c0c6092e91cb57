// Native synchronisation: critical (unnamed and named), atomic, single and single copyprivate,
// taskgroups and tasks are in task.cpp, cancellation in cancel.cpp.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"

namespace poolshim::abi::openmp::runtime {
namespace {

Lock g_critical;  // the unnamed critical section (one per process, as libgomp's)
Lock g_atomic;    // GOMP_atomic_start/end: atomics the compiler could not make lock-free

void init_nothing(WorkShare*, void*) {}

}  // namespace
}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_GOMP_critical_start() { g_critical.lock(); }
void psn_GOMP_critical_end() { g_critical.unlock(); }

// A named critical section's lock lives in the pointer-sized, zero-initialised variable the
// compiler emits for the name (as libgomp does when its mutex fits in a pointer).
static_assert(sizeof(Lock) <= sizeof(void*), "a named critical's lock fits its pointer");
void psn_GOMP_critical_name_start(void** pptr) { reinterpret_cast<Lock*>(pptr)->lock(); }
void psn_GOMP_critical_name_end(void** pptr) { reinterpret_cast<Lock*>(pptr)->unlock(); }

void psn_GOMP_atomic_start() { g_atomic.lock(); }
void psn_GOMP_atomic_end() { g_atomic.unlock(); }

// The member whose count claims the team's next single construct runs it. A member that reads
// the construct claimed already does not try: a failed exchange would still take the line
// from the member that runs it.
bool psn_GOMP_single_start() {
  ThreadState& s = me();
  Team* t = s.team;
  if (t == nullptr || t->n <= 1) return true;
  unsigned long mine = s.single_seq++;
  if (t->single_claimed.load(std::memory_order_relaxed) != mine) return false;
  return t->single_claimed.compare_exchange_strong(mine, mine + 1, std::memory_order_acq_rel);
}

// single copyprivate: the first member to enter runs the construct (nullptr); the others wait
// at a barrier for GOMP_single_copy_end to publish its data, and get it.
void* psn_GOMP_single_copy_start() {
  bool first;
  WorkShare* w = ws_enter(init_nothing, nullptr, &first);
  if (first) return nullptr;
  team_barrier();
  void* data = w->copyprivate;
  ws_leave();
  return data;
}
void psn_GOMP_single_copy_end(void* data) {
  WorkShare* w = me().ws;
  if (w != nullptr) w->copyprivate = data;
  team_barrier();
  ws_leave();
}

}  // extern "C"
