// Native def-allocator-var: omp_set_default_allocator / omp_get_default_allocator,
// and the allocation entry points that read it when given omp_null_allocator. libgomp keeps it
// per thread (ts.def_allocator) and a parallel region's members inherit the creator's; here the
// members run on the pool's threads, whose libgomp state knows nothing of the creator's, so the
// variable is ours (ThreadState, inherited through the team) and an allocation with
// omp_null_allocator is forwarded to libgomp with the allocator it stands for. Allocators
// themselves (omp_init_allocator, omp_free, ...) stay libgomp's: they do not depend on the thread.
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/libgomp.h"
#include "abi/openmp/runtime/state.h"

namespace poolshim::abi::openmp::runtime {
namespace {

constexpr uintptr_t kNullAllocator = 0;
constexpr uintptr_t kDefaultMemAlloc = 1;  // omp_default_mem_alloc

// One libgomp function, looked up on first use (nullptr: no libgomp).
struct Real {
  const char* name;
  const char* version;
  std::atomic<void*> fn{nullptr};
  std::atomic<bool> looked{false};
  template <typename F>
  F get() {
    if (!looked.load(std::memory_order_acquire)) {
      fn.store(real_function(name, version), std::memory_order_relaxed);
      looked.store(true, std::memory_order_release);
    }
    return reinterpret_cast<F>(fn.load(std::memory_order_relaxed));
  }
};

Real g_get_default{"omp_get_default_allocator", "OMP_5.0.1"};
Real g_alloc{"omp_alloc", "OMP_5.0.1"};
Real g_aligned_alloc{"omp_aligned_alloc", "OMP_5.0.2"};
Real g_calloc{"omp_calloc", "OMP_5.0.2"};
Real g_aligned_calloc{"omp_aligned_calloc", "OMP_5.0.2"};
Real g_realloc{"omp_realloc", "OMP_5.0.2"};
Real g_gomp_alloc{"GOMP_alloc", "GOMP_5.0.1"};

// The allocator omp_null_allocator stands for on this thread, if we know better than libgomp.
uintptr_t resolve(uintptr_t a) {
  if (a != kNullAllocator) return a;
  return me().def_allocator;
}

}  // namespace
}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_omp_set_default_allocator(uintptr_t a) {
  me().def_allocator = a == kNullAllocator ? kDefaultMemAlloc : a;
}
uintptr_t psn_omp_get_default_allocator() {
  if (uintptr_t a = me().def_allocator) return a;
  auto f = g_get_default.get<uintptr_t (*)()>();
  return f ? f() : kDefaultMemAlloc;
}
void psn_omp_set_default_allocator_(const intptr_t* a) {
  psn_omp_set_default_allocator(static_cast<uintptr_t>(*a));
}
intptr_t psn_omp_get_default_allocator_() {
  return static_cast<intptr_t>(psn_omp_get_default_allocator());
}

void* psn_omp_alloc(size_t size, uintptr_t a) {
  auto f = g_alloc.get<void* (*)(size_t, uintptr_t)>();
  return f ? f(size, resolve(a)) : nullptr;
}
void* psn_omp_aligned_alloc(size_t alignment, size_t size, uintptr_t a) {
  auto f = g_aligned_alloc.get<void* (*)(size_t, size_t, uintptr_t)>();
  return f ? f(alignment, size, resolve(a)) : nullptr;
}
void* psn_omp_calloc(size_t n, size_t size, uintptr_t a) {
  auto f = g_calloc.get<void* (*)(size_t, size_t, uintptr_t)>();
  return f ? f(n, size, resolve(a)) : nullptr;
}
void* psn_omp_aligned_calloc(size_t alignment, size_t n, size_t size, uintptr_t a) {
  auto f = g_aligned_calloc.get<void* (*)(size_t, size_t, size_t, uintptr_t)>();
  return f ? f(alignment, n, size, resolve(a)) : nullptr;
}
// A null allocator means the block's own when there is a block (libgomp), the default otherwise.
void* psn_omp_realloc(void* ptr, size_t size, uintptr_t a, uintptr_t free_a) {
  auto f = g_realloc.get<void* (*)(void*, size_t, uintptr_t, uintptr_t)>();
  return f ? f(ptr, size, ptr == nullptr ? resolve(a) : a, free_a) : nullptr;
}
void* psn_GOMP_alloc(size_t alignment, size_t size, uintptr_t a) {
  auto f = g_gomp_alloc.get<void* (*)(size_t, size_t, uintptr_t)>();
  return f ? f(alignment, size, resolve(a)) : nullptr;
}

}  // extern "C"
