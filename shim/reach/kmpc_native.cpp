// The native __kmpc runtime's names (kmpc_native.h). Each set is one string of names between
// spaces, made from its .def at compile time: no table of pointers to relocate at load.
#include "reach/kmpc_native.h"

#include <string.h>

namespace poolshim::reach {
namespace {

// Whether `name` is one of the space-separated words of `words` (which starts and ends with one).
bool listed(const char* words, const char* name) {
  const size_t n = strlen(name);
  if (n == 0) return false;
  for (const char* p = strstr(words, name); p != nullptr; p = strstr(p + 1, name))
    if (p[-1] == ' ' && p[n] == ' ') return true;
  return false;
}

constexpr char kKmpcNames[] = " "
#define K(name) #name " "
#include "symbols/kmpc_native.def"
#undef K
    ;

constexpr char kRuntimeNames[] = " "
#define R(name) #name " "
#define AS(name, fn) #name " "
#define RV(name, version) #name " "
#include "symbols/openmp_native.def"
#undef R
#undef AS
#undef RV
    ;

// omp_* functions that read no team (kmpc_import_blocks).
constexpr char kAnywhereNames[] =
    " omp_get_wtime omp_get_wtick omp_get_num_procs omp_get_num_devices omp_get_initial_device"
    " omp_is_initial_device omp_get_device_num omp_get_max_task_priority omp_display_env"
    " omp_get_num_places omp_get_place_num_procs omp_get_place_proc_ids omp_control_tool"
    " omp_get_affinity_format ";

}  // namespace

bool kmpc_name_native(const char* name) {
  return strncmp(name, "__kmpc_", 7) == 0 && listed(kKmpcNames, name + 7);
}

bool openmp_name_native(const char* name) {
  if (strncmp(name, "omp_", 4) != 0 && strncmp(name, "GOMP_", 5) != 0) return false;
  if (strstr(name, "_lock") != nullptr || strstr(name, "alloc") != nullptr ||
      strstr(name, "free") != nullptr)
    return false;
  return listed(kRuntimeNames, name);
}

bool kmpc_import_blocks(const char* name) {
  if (strncmp(name, "__kmpc_", 7) == 0) return !kmpc_name_native(name);
  if (strncmp(name, "omp_", 4) == 0)
    return !openmp_name_native(name) && strstr(name, "_lock") == nullptr &&
           !listed(kAnywhereNames, name);
  if (strncmp(name, "GOMP_", 5) == 0) return !openmp_name_native(name);
  return false;
}

}  // namespace poolshim::reach
