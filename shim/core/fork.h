// fork(): one place for the shim's pthread_atfork handlers (docs/design.md, "Fork").
//
// Every piece of shim state that has a lock or a thread enrols here with three hooks, listed in
// ONE table in fork.cpp (a unit test checks that every source file of shim/ that declares a mutex
// or starts a thread is in that table). The handlers are registered by a library constructor, so
// they are in place before any of those locks can be taken.
//  - prepare: take the lock, so the child inherits consistent state (in the table's order);
//  - parent:  release it (reverse order);
//  - child:   release it (reverse order): the forking thread, the child's only thread, holds it
//             there too. Unlock, not pthread_mutex_init: re-initialising a locked mutex is
//             undefined (ThreadSanitizer reports the child's next lock as a double lock). Then
//             forget anything that refers to threads that do not exist in the child (the pool's
//             workers, calls in flight).
#pragma once

#include <cstddef>

namespace poolshim::core {

struct ForkParticipant {
  const char* source;  // the file under shim/ whose state this is (checked by the unit test)
  void (*prepare)();   // nullptr: nothing to take before fork (see the table's comment)
  void (*parent)();
  void (*child)();
};

// The table, in prepare order (for the unit test and `poolshim info`-style introspection).
const ForkParticipant* fork_participants(size_t* count);

}  // namespace poolshim::core

// The hooks, one trio per participant (defined in the participant's own file).
namespace poolshim::abi {
void forward_atfork_prepare();  // abi/executorch/forward.cpp: the forwarding cache
void forward_atfork_parent();
void forward_atfork_child();
}  // namespace poolshim::abi
namespace poolshim::abi::ptp {
void handles_atfork_prepare();  // abi/pthreadpool/handle.cpp: the handle table (+ executor mutexes)
void handles_atfork_parent();
void handles_atfork_child();
}  // namespace poolshim::abi::ptp
namespace poolshim::abi::ptp::passthrough {
void passthrough_atfork_prepare();  // abi/pthreadpool/passthrough.cpp: the noted-functions table
void passthrough_atfork_parent();
void passthrough_atfork_child();
}  // namespace poolshim::abi::ptp::passthrough
namespace poolshim::core {
void grants_atfork_prepare();  // core/grants.cpp: the size requests
void grants_atfork_parent();
void grants_atfork_child();
}  // namespace poolshim::core
namespace poolshim::reach {
void registry_atfork_prepare();  // reach/registry.cpp: the module registry
void registry_atfork_parent();
void registry_atfork_child();
}  // namespace poolshim::reach
namespace poolshim::diag {
void caller_atfork_prepare();  // diag/caller.cpp: the first-call log cache
void caller_atfork_parent();
void caller_atfork_child();
}  // namespace poolshim::diag
