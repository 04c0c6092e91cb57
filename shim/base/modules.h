// The modules loaded in this process: the one wrapper around dl_iterate_phdr. Nothing here
// knows ELF beyond the program headers the dynamic linker hands out.
//
// The callbacks run INSIDE dl_iterate_phdr: glibc holds its loader write lock there, so the
// module cannot be unmapped while it is being read (reading it afterwards would race with a
// dlclose in another thread). The rules for a callback: read memory, take only locks that are
// never held across a call into the dynamic linker, and never call dlopen, dlclose, dlsym or
// dladdr (they take the loader locks in another order).
#pragma once
#include <link.h>

#include <cstddef>
#include <cstdint>

namespace poolshim::base {

struct LoadedModule {
  uintptr_t bias = 0;                 // dlpi_addr: load bias
  const ElfW(Phdr) * phdr = nullptr;  // its program headers, in memory
  size_t phnum = 0;
  const char* name = "";           // dlpi_name: "" for the main executable
  bool main_executable = false;    // first in the link map
  unsigned long long unloads = 0;  // dlpi_subs during this walk (see unloaded_generation())
};

using ModuleFn = void (*)(const LoadedModule& m, void* ctx);

// Calls fn for the loaded module whose segments contain addr (inside dl_iterate_phdr).
// Returns false when no module contains addr (JIT code, anonymous memory, nullptr).
bool with_module_at(const void* addr, ModuleFn fn, void* ctx);

// Calls fn for every loaded module, the main executable first (inside dl_iterate_phdr).
void for_each_module(ModuleFn fn, void* ctx);

// Calls fn for the main executable only (the first entry; inside dl_iterate_phdr).
void with_main_executable(ModuleFn fn, void* ctx);

// How many modules the dynamic linker has loaded so far (glibc's dlpi_adds; it only grows).
// Equal values mean no module was loaded in between. 0 when the C library does not say.
unsigned long long loaded_generation();

// How many modules the dynamic linker has unloaded so far (glibc's dlpi_subs; it only grows).
// Anything cached by address must be dropped when it changes: another module may now be mapped
// at the same address (docs/design.md, "Module lifetime"). One dl_iterate_phdr step: call it
// only where a cache is consulted, never per task.
unsigned long long unloaded_generation();

}  // namespace poolshim::base
