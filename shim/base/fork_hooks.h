// What the fork hooks (lifecycle/fork.cpp's table) share: their locks' page, their text's, and
// the helpers that keep a child's reads and stores off pages it does not need (read_once,
// map_for_children, reset_if_set).
//
// Why the locks share one page: prepare takes each of the mutexes, and the parent and the child
// each release them after the fork. A release is a store, and the first store to a page that the
// fork left shared copies that page, in the parent and in the child. With each module's mutex
// beside its module's other state, a fork cost one copied page per module a side. Kept together, it
// costs one a side (docs/bench.md, "A fork's child: ...").
//
// Each mutex still belongs to its module. The module binds a reference to its member, and
// lifecycle/fork.cpp lists the module for it (tests/unit/fork_enrolment_test.cpp). This header
// holds only the mutexes' storage (and the page size beside them), not their use.
#pragma once
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

// On the declaration of every fork hook (prepare, parent, child, and what a child hook calls).
// A child touches the hooks' text after every fork, and text that the child has not touched
// since the fork is a page fault (the kernel maps a file's pages in a child lazily, up to 64 KiB
// around the address per fault). cold sends the hooks to .text.unlikely, which GNU ld gathers
// from every object into one place: a child faults in their text once, not once per module.
#define POOLSHIM_FORK_HOOK __attribute__((cold))

namespace poolshim::base {
#pragma GCC visibility push(hidden)

// 7 mutexes of 40 bytes and the page size, padded to 512: a 512-aligned block never straddles a
// page boundary.
struct alignas(512) ForkLocks {
  pthread_mutex_t executorch_forward = PTHREAD_MUTEX_INITIALIZER;  // abi/executorch/forward.cpp
  pthread_mutex_t ptp_handles = PTHREAD_MUTEX_INITIALIZER;         // abi/pthreadpool/handle.cpp
  pthread_mutex_t ptp_passthrough = PTHREAD_MUTEX_INITIALIZER;  // abi/pthreadpool/passthrough.cpp
  pthread_mutex_t size_grants = PTHREAD_MUTEX_INITIALIZER;      // core/size.cpp
  pthread_mutex_t worker_spawn = PTHREAD_MUTEX_INITIALIZER;     // core/workers.cpp
  pthread_mutex_t caller_seen = PTHREAD_MUTEX_INITIALIZER;      // diag/caller.cpp
  pthread_mutex_t module_registry = PTHREAD_MUTEX_INITIALIZER;  // reach/registry.cpp
  // Not a lock: the page size that a child hook's mincore needs (base/resident_pages.h), 0 until
  // the first prepare (lifecycle/fork.cpp) stores it (without one, the child asks libc). Stored
  // there, in the parent, no child calls getpagesize() (a page of libc's text) and no process reads
  // it at load (a constructor, and a page of .bss read then written); kept here, on the page every
  // child writes anyway.
  std::atomic<uintptr_t> page_size{0};
};
static_assert(sizeof(ForkLocks) <= 4096, "the fork locks must fit on one page");

inline ForkLocks g_fork_locks;  // all zeros: .bss, constant-initialized

// One read of an object: a relaxed load of an atomic (other threads of the parent may be writing
// it), a volatile read of anything else (which the caller's lock must guard).
template <typename Atomic>
inline auto read_once(const Atomic& a) -> decltype(a.load(), void()) {
  static_cast<void>(a.load(std::memory_order_relaxed));
}
template <typename T, typename = std::enable_if_t<std::is_scalar<T>::value>>
inline void read_once(const T& v) {
  static_cast<void>(*static_cast<const volatile T*>(&v));
}

// For a prepare hook (in the parent, before the fork): reads each object that the child hook will
// read. A page of .bss that the parent never touched is not mapped, and each child's first read
// of it is a page fault; read once here, it is mapped to the zero page (no memory), and the fork
// copies that mapping into every later child.
template <typename... T>
inline void map_for_children(const T&... objects) {
  (..., read_once(objects));
}

// Stores `zero` into a only if it holds something else (an atomic: relaxed; or a plain variable,
// for a thread-local the forking thread owns).
template <typename Atomic>
__attribute__((always_inline)) inline auto reset_if_set(
    Atomic& a, decltype(std::declval<Atomic&>().load()) zero) -> decltype(a.load(), void()) {
  if (a.load(std::memory_order_relaxed) != zero) a.store(zero, std::memory_order_relaxed);
}
template <typename T, typename = std::enable_if_t<std::is_scalar<T>::value>>
__attribute__((always_inline)) inline void reset_if_set(T& v, std::remove_cv_t<T> zero) {
  if (v != zero) v = zero;
}

#pragma GCC visibility pop
}  // namespace poolshim::base
