// Questions the shim's ABI layer asks about the module a call came from.
//
// Both functions are callable from any thread, at any time (including from constructors run
// by dlopen and from pool workers), take no lock across a call into the dynamic linker, and never
// allocate on the heap. The first question about a module reads its dynamic tables once (cached
// in elf/registry.h); afterwards a call costs one dl_iterate_phdr walk to find the module.
#pragma once

namespace poolshim::elf {

// True when the module whose code contains addr resolves its pthreadpool_* calls through the
// dynamic linker (so they reach the shim), false when it carries a private pthreadpool copy the
// shim cannot reach (hidden, protected, -Bsymbolic, bound locally, in the main executable, or
// the main executable's exported copy comes first). True for an address in no module (JIT code),
// in a module without any pthreadpool copy, and in the shim itself.
bool pthreadpool_calls_reach_shim(const void* addr_in_module);

// The address of the module's OWN definition of a dynamic symbol: the module whose code
// contains addr_in_module, its .dynsym entry named mangled_name (st_value + load bias). nullptr
// when addr is in no module, or the module does not define (export) that name, or the symbol
// is TLS, absolute or an IFUNC. Used to forward calls made on a foreign ThreadPool object to the
// calling module's own code. (A hidden definition is not in .dynsym and gives nullptr.)
const void* module_own_definition(const void* addr_in_module, const char* mangled_name);

}  // namespace poolshim::elf
