// The process-wide fork handlers (see fork.h and docs/design.md, "Fork").
#include "lifecycle/fork.h"

#include <pthread.h>
#include <unistd.h>

#include "abi/executorch/forward.h"
#include "abi/pthreadpool/handle.h"
#include "abi/pthreadpool/passthrough.h"
#include "base/fork_hooks.h"
#include "core/size.h"
#include "core/pool.h"
#include "core/gang.h"
#include "diag/caller.h"
#include "reach/registry.h"

extern "C" {
extern void* __dso_handle;
int __register_atfork(void (*prepare)(), void (*parent)(), void (*child)(), void* dso_handle);
}

namespace poolshim::lifecycle {
namespace {

// ONE line per participant, in prepare order. The order is "outer before inner": a participant
// whose lock holder may go on to take another participant's lock comes first, so prepare never
// waits for a lock while holding one that the lock's current holder needs.
//  - the ExecuTorch forwarding cache: its holder reads the module registry (reach/) and logs;
//  - the handle table: its holder takes nothing else (create/destroy call grants after unlocking);
//  - the size requests (grants): its holder calls core::request_size(), lock-free;
//  - the pool: its hooks are the scheduler's (core/pool.cpp); they must not wait for tasks, since
//    no lock of the shim is held while a task runs (pool.h) and tasks may call any surface;
//  - the registry, the caller cache, the passthrough table: leaves (their holders take nothing);
//  - the OpenMP gangs (core/team.cpp): lock-free, nothing to take; the child forgets them.
// Not taken in prepare, on purpose:
//  - each pthreadpool handle's exec_mutex (abi/pthreadpool/executor.cpp): it is held for the
//    whole of a call on a client executor, across client code that may itself fork; the handle
//    table's child hook re-initialises every one of them (their call cannot continue in the
//    child: its executor's threads are gone);
//  - an executor call's job mutex (abi/pthreadpool/executor.cpp): per call, on the heap, only
//    used by that call's participants, none of which exists in the child;
//  - pthread_once controls (options, log sink, engine, passthrough, ExecuTorch negotiation and
//    handle, budget, busy mode): glibc restarts a once routine that a fork interrupted
//    (base/first_use.h; tests/unit/first_use_test.cpp checks it).
const ForkParticipant kParticipants[] = {
    {"abi/executorch/forward.cpp", abi::forward_atfork_prepare, abi::forward_atfork_parent,
     abi::forward_atfork_child},
    {"abi/pthreadpool/handle.cpp", abi::ptp::handles_atfork_prepare,
     abi::ptp::handles_atfork_parent, abi::ptp::handles_atfork_child},
    {"core/size.cpp", core::grants_atfork_prepare, core::grants_atfork_parent,
     core::grants_atfork_child},
    {"core/pool.cpp", core::pool_atfork_prepare, core::pool_atfork_parent, core::pool_atfork_child},
    {"reach/registry.cpp", reach::registry_atfork_prepare, reach::registry_atfork_parent,
     reach::registry_atfork_child},
    {"diag/caller.cpp", diag::caller_atfork_prepare, diag::caller_atfork_parent,
     diag::caller_atfork_child},
    {"abi/pthreadpool/passthrough.cpp", abi::ptp::passthrough::passthrough_atfork_prepare,
     abi::ptp::passthrough::passthrough_atfork_parent,
     abi::ptp::passthrough::passthrough_atfork_child},
    {"abi/pthreadpool/executor.cpp", nullptr, nullptr,
     nullptr},  // see above: handle table's child hook
    {"core/workers.cpp", nullptr, nullptr,
     nullptr},  // through core/pool.cpp's hooks (workers::atfork_*)
    {"core/gang.cpp", core::gang::atfork_prepare, core::gang::atfork_parent,
     core::gang::atfork_child},  // also the seats, the servers and the gang threads
    {"core/thread_start.cpp", nullptr, nullptr,
     nullptr},  // no state: the threads it starts are core/workers.cpp's and the gangs'
};
constexpr size_t kCount = sizeof kParticipants / sizeof kParticipants[0];

POOLSHIM_FORK_HOOK void prepare() {
  if (base::g_fork_locks.page_size.load(std::memory_order_relaxed) == 0)
    base::g_fork_locks.page_size.store(static_cast<uintptr_t>(getpagesize()),
                                       std::memory_order_relaxed);
  for (size_t i = 0; i < kCount; ++i)
    if (kParticipants[i].prepare) kParticipants[i].prepare();
}
POOLSHIM_FORK_HOOK void parent() {
  for (size_t i = kCount; i-- > 0;)
    if (kParticipants[i].parent) kParticipants[i].parent();
}
POOLSHIM_FORK_HOOK void child() {
  for (size_t i = kCount; i-- > 0;)
    if (kParticipants[i].child) kParticipants[i].child();
}

// At load time, before any constructor or caller of the shim can take one of the locks above
// (priority 101: first among the shim's own constructors). Nothing else: no thread, no output.
// glibc's pthread_atfork is a static stub (libc_nonshared.a) that calls __register_atfork with
// the object's __dso_handle (so that a dlclose unregisters the handlers); calling that directly
// keeps the stub out of the library, where the linker puts it last in .text: a page of its own
// that the load touched, and the kernel's fault-around with it about 40 KiB of resident text.
__attribute__((constructor(101))) void register_fork_handlers() {
  __register_atfork(prepare, parent, child, &__dso_handle);
}

}  // namespace

const ForkParticipant* fork_participants(size_t* count) {
  if (count) *count = kCount;
  return kParticipants;
}

}  // namespace poolshim::lifecycle
