// Nest locks of the native runtime: OpenMP 3.0 made locks owned by tasks, not
// threads, so a nest lock held by one task is not the same task's again inside a parallel
// region on the same thread, or inside an undeferred task (libgomp.c/lock-1.c, lock-2.c).
// libgomp's OMP_3.0 omp_nest_lock_t is {int lock; int count; void* owner;} (16 bytes, owner the
// task); ours has that layout and size, the owner being current_task() (state.h). The
// OMP_1.0 bindings (binaries linked before 3.0) are owned by threads: they forward to libgomp,
// which is right for them. Simple locks have no owner: they forward too.
#include <stdlib.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"

namespace poolshim::abi::openmp::runtime {
namespace {

struct NestLock {
  Lock lock;
  int count;
  std::atomic<const void*> owner;
};
static_assert(sizeof(NestLock) == 16, "libgomp's omp_nest_lock_t (OMP_3.0) is 16 bytes");
static_assert(sizeof(Lock) == sizeof(int), "the lock word is libgomp's int");

NestLock* as_nest(void* p) { return static_cast<NestLock*>(p); }

bool try_lock(Lock& l) {
  uint32_t c = 0;
  return l.state.compare_exchange_strong(c, 1, std::memory_order_acquire);
}

}  // namespace
}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_omp_init_nest_lock(void* p) {
  NestLock* l = as_nest(p);
  l->lock.state.store(0, std::memory_order_relaxed);
  l->count = 0;
  l->owner.store(nullptr, std::memory_order_relaxed);
}

void psn_omp_destroy_nest_lock(void*) {}

void psn_omp_set_nest_lock(void* p) {
  NestLock* l = as_nest(p);
  const void* self = current_task();
  if (l->owner.load(std::memory_order_relaxed) != self) {
    l->lock.lock();
    l->owner.store(self, std::memory_order_relaxed);
  }
  ++l->count;
}

void psn_omp_unset_nest_lock(void* p) {
  NestLock* l = as_nest(p);
  if (--l->count == 0) {
    l->owner.store(nullptr, std::memory_order_relaxed);
    l->lock.unlock();
  }
}

int psn_omp_test_nest_lock(void* p) {
  NestLock* l = as_nest(p);
  const void* self = current_task();
  if (l->owner.load(std::memory_order_relaxed) == self) return ++l->count;
  if (!try_lock(l->lock)) return 0;
  l->owner.store(self, std::memory_order_relaxed);
  l->count = 1;
  return 1;
}

}  // extern "C"

// The Fortran spellings (OMP_3.0): a Fortran nest lock is an integer(omp_nest_lock_kind), 8 bytes,
// smaller than omp_nest_lock_t (16), so libgomp's fortran.c keeps a malloc'd lock's address in it
// (its OMP_NEST_LOCK_DIRECT is not defined on LP64); these do the same with the native lock.
extern "C" {

void psn_omp_init_nest_lock_(void** p) {
  *p = xmalloc(16);
  psn_omp_init_nest_lock(*p);
}
void psn_omp_destroy_nest_lock_(void** p) {
  psn_omp_destroy_nest_lock(*p);
  free(*p);
  *p = nullptr;
}
void psn_omp_set_nest_lock_(void** p) { psn_omp_set_nest_lock(*p); }
void psn_omp_unset_nest_lock_(void** p) { psn_omp_unset_nest_lock(*p); }
int psn_omp_test_nest_lock_(void** p) { return psn_omp_test_nest_lock(*p); }

}  // extern "C"
