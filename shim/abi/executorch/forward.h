// Forwarding for calls the shim must not serve itself: members called on a ThreadPool object the
// shim did not create, POOLSHIM_DISABLE=executorch, and modules whose own pthreadpool copy the
// shim cannot reach. The call goes to the definition in the CALLER's own module (the module whose
// code holds the return address), never to another module's copy.
#pragma once
#include "abi/executorch/symbols.h"
#include "base/fork_hooks.h"

namespace poolshim::abi {

// The caller module's own definition of `sym`, or nullptr when the caller has none (e.g. an
// executable linked against libpoolshim.so). Cached per (symbol, module); lock-free after the
// first lookup of a pair, until a module is unloaded (then the cache starts afresh).
void* own_definition(EtSym sym, const void* return_address);

// fork (lifecycle/fork.cpp's table): the forwarding cache's lock.
POOLSHIM_FORK_HOOK void forward_atfork_prepare();
POOLSHIM_FORK_HOOK void forward_atfork_parent();
POOLSHIM_FORK_HOOK void forward_atfork_child();

}  // namespace poolshim::abi
