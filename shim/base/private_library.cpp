// Opening a library privately: see private_library.h.
#include "base/private_library.h"

#include <dlfcn.h>

namespace poolshim::base {
namespace {

// The load base of the module this code is linked into (the shim or the command).
const void* our_base() {
  Dl_info mine;
  if (dladdr(reinterpret_cast<void*>(&our_base), &mine) == 0) return nullptr;
  return mine.dli_fbase;
}

}  // namespace

bool is_ours(const void* addr) {
  const void* ours = our_base();
  Dl_info theirs;
  return ours != nullptr && addr != nullptr && dladdr(addr, &theirs) != 0 &&
         theirs.dli_fbase == ours;
}

PrivateLibrary open_private(const char* soname, const char* const* names, size_t count,
                            void** out) {
  PrivateLibrary lib;
  for (size_t i = 0; i < count; ++i) out[i] = nullptr;
  lib.handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (lib.handle == nullptr) {
    const char* err = dlerror();
    lib.error = err != nullptr ? err : "unknown error";
    return lib;
  }
  for (size_t i = 0; i < count; ++i) {
    void* sym = dlsym(lib.handle, names[i]);
    if (is_ours(sym)) {
      ++lib.refused;
      continue;
    }
    out[i] = sym;
    if (sym != nullptr) ++lib.found;
  }
  return lib;
}

}  // namespace poolshim::base
