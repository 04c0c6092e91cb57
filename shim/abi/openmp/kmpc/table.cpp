// The native function of a __kmpc_* name (kmpc.h). Found by name with a chain of comparisons, on
// a row's first call only: a table of function pointers would be a relocation per entry at load
// time, in every process.
#include <string.h>

#include "abi/openmp/kmpc/kmpc.h"

// The native entry points, psk_<name> for each K(name) of symbols/kmpc_native.def (parallel.cpp,
// loop.cpp, task.cpp, cancel.cpp); declared here by name only (the lookup takes their addresses,
// never calls them).
extern "C" {
#define K(fn) __attribute__((visibility("hidden"))) void psk_##fn();
#include "symbols/kmpc_native.def"
#undef K
}

namespace poolshim::abi::openmp::kmpc {

void* native_function(const char* name) {
  constexpr size_t kPrefix = sizeof "__kmpc_" - 1;
  if (strncmp(name, "__kmpc_", kPrefix) != 0) return nullptr;
  const char* fn = name + kPrefix;
#define K(f) \
  if (strcmp(fn, #f) == 0) return reinterpret_cast<void*>(&psk_##f);
#include "symbols/kmpc_native.def"
#undef K
  return nullptr;
}

}  // namespace poolshim::abi::openmp::kmpc
