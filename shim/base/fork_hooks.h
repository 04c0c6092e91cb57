// What the fork hooks (lifecycle/fork.cpp's table) share: their locks' page and their text's.
//
// Why one page: prepare takes each of them, and the parent and the child each release them after
// the fork. A release is a store, and the first store to a page that the fork left shared copies
// that page, in the parent and in the child. With each module's mutex beside its module's other
// state, a fork cost one copied page per module a side. Kept together, it costs one a side
// (docs/bench.md, "A fork's child: ...").
//
// Each mutex still belongs to its module. The module binds a reference to its member, and
// lifecycle/fork.cpp lists the module for it (tests/unit/fork_enrolment_test.cpp). This header
// is only where the storage is.
#pragma once
#include <pthread.h>

// On the declaration of every fork hook (prepare, parent, child, and what a child hook calls).
// A child touches the hooks' text after every fork, and text that the child has not touched
// since the fork is a page fault (the kernel maps a file's pages in a child lazily, up to 64 KiB
// around the address per fault). cold sends the hooks to .text.unlikely, which GNU ld gathers
// from every object into one place: a child faults in their text once, not once per module.
#define POOLSHIM_FORK_HOOK __attribute__((cold))

namespace poolshim::base {
#pragma GCC visibility push(hidden)

// 7 mutexes of 40 bytes, padded to 512: a 512-aligned block never straddles a page boundary.
struct alignas(512) ForkLocks {
  pthread_mutex_t executorch_forward = PTHREAD_MUTEX_INITIALIZER;  // abi/executorch/forward.cpp
  pthread_mutex_t ptp_handles = PTHREAD_MUTEX_INITIALIZER;         // abi/pthreadpool/handle.cpp
  pthread_mutex_t ptp_passthrough = PTHREAD_MUTEX_INITIALIZER;  // abi/pthreadpool/passthrough.cpp
  pthread_mutex_t size_grants = PTHREAD_MUTEX_INITIALIZER;      // core/size.cpp
  pthread_mutex_t worker_spawn = PTHREAD_MUTEX_INITIALIZER;     // core/workers.cpp
  pthread_mutex_t caller_seen = PTHREAD_MUTEX_INITIALIZER;      // diag/caller.cpp
  pthread_mutex_t module_registry = PTHREAD_MUTEX_INITIALIZER;  // reach/registry.cpp
};
static_assert(sizeof(ForkLocks) <= 4096, "the fork locks must fit on one page");

inline ForkLocks g_fork_locks;  // all zeros: .bss, constant-initialized

#pragma GCC visibility pop
}  // namespace poolshim::base
