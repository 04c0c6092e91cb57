// fork(): one place for the shim's pthread_atfork handlers (docs/design.md, "Fork").
//
// Every piece of shim state that has a lock or a thread declares its three hooks in its own
// header (abi/executorch/forward.h, core/pool.h, reach/registry.h, ...) and is listed in ONE
// table in fork.cpp (a unit test checks that every source file of shim/ that declares a mutex or
// starts a thread is in that table). lifecycle/ is the top layer of the library: it may name
// every module, and no module names it, so the table never makes a lower layer know a higher one.
// The handlers are registered by a library constructor, so they are in place before any of those
// locks can be taken.
//  - prepare: take the lock, so the child inherits consistent state (in the table's order);
//  - parent:  release it (reverse order);
//  - child:   release it (reverse order): the forking thread, the child's only thread, holds it
//             there too. Unlock, not pthread_mutex_init: re-initialising a locked mutex is
//             undefined (ThreadSanitizer reports the child's next lock as a double lock). Then
//             forget anything that refers to threads that do not exist in the child (the pool's
//             workers, calls in flight).
#pragma once

#include <cstddef>

namespace poolshim::lifecycle {

struct ForkParticipant {
  const char* source;  // the file under shim/ whose state this is (checked by the unit test)
  void (*prepare)();   // nullptr: nothing to take before fork (see the table's comment)
  void (*parent)();
  void (*child)();
};

// The table, in prepare order (for the unit test and `poolshim info`-style introspection).
const ForkParticipant* fork_participants(size_t* count);

}  // namespace poolshim::lifecycle
