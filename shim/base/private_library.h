// Opening a library privately: the one place that dlopen()s another library into the process.
//
// Why RTLD_LOCAL, never a link: a preloaded library's DT_NEEDED dependencies join the global
// scope, so a linked libpthreadpool or libcpuinfo would interpose the private copies that legacy
// modules carry, with another version and struct layout (docs/interposition.md). Opened
// RTLD_LOCAL and used through dlsym on its own handle, its symbols stay out of everybody else's
// lookups. RTLD_NOW: a missing dependency or symbol fails here, where the caller reports it, not
// at the first call through a lazily bound PLT slot.
//
// Why the "not ours" check: dlsym on a handle searches that object and its dependencies only, yet
// a symbol that resolves into our own module (the shim, or the command that links the readers)
// would make a forwarded call land back in us and recurse forever. Such a symbol is refused.
#pragma once
#include <cstddef>

namespace poolshim::base {

struct PrivateLibrary {
  void* handle = nullptr;       // nullptr: the library could not be opened
  const char* error = nullptr;  // then: dlerror()'s text, or a fixed one (never nullptr)
  size_t found = 0;             // symbols resolved (out[i] != nullptr)
  size_t refused = 0;           // symbols that resolved into our own module (out[i] = nullptr)
};

// dlopen(soname, RTLD_NOW | RTLD_LOCAL), then out[i] = dlsym(handle, names[i]) for each of the
// count names, nullptr when missing or ours. The handle is left open (the caller may dlclose it
// when nothing of it ran). Takes the dynamic linker's locks: never call it from a dl_iterate_phdr
// callback or with a lock that such a callback takes.
PrivateLibrary open_private(const char* soname, const char* const* names, size_t count, void** out);

// True when addr lies in our own module (the one this code is linked into): the check
// open_private applies to every symbol it resolves.
bool is_ours(const void* addr);

}  // namespace poolshim::base
