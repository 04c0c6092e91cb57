// Which __kmpc_* names the native runtime implements, and which omp_* names may run natively
// beside them (kmpc.h). Found by name with a chain of comparisons, on a row's first call only:
// a table of function pointers would be a relocation per entry at load time, in every process.
#include <string.h>

#include "abi/openmp/entry.h"
#include "abi/openmp/kmpc/kmpc.h"
#include "symbols/openmp_rows.h"

// The native entry points: parallel.cpp, loop.cpp and task.cpp define psk_<name without
// __kmpc_>; declared here by name only (the lookup takes their addresses, never calls them).
// clang-format off
#define PSK_NATIVE(X) \
  X(fork_call) X(push_num_threads) X(serialized_parallel) X(end_serialized_parallel) \
  X(global_thread_num) X(bound_thread_num) X(bound_num_threads) X(in_parallel) X(ok_to_fork) \
  X(barrier) X(flush) X(single) X(end_single) X(master) X(end_master) X(masked) X(end_masked) \
  X(critical) X(critical_with_hint) X(end_critical) X(reduce) X(reduce_nowait) X(end_reduce) \
  X(end_reduce_nowait) X(for_static_init_4) X(for_static_init_4u) X(for_static_init_8) \
  X(for_static_init_8u) X(for_static_fini) X(dispatch_init_4) X(dispatch_init_4u) \
  X(dispatch_init_8) X(dispatch_init_8u) X(dispatch_next_4) X(dispatch_next_4u) \
  X(dispatch_next_8) X(dispatch_next_8u) X(omp_task_alloc) X(omp_task) X(omp_task_with_deps) \
  X(omp_wait_deps) X(omp_task_begin_if0) X(omp_task_complete_if0) X(omp_taskwait) \
  X(omp_taskyield) X(taskgroup) X(end_taskgroup) X(copyprivate) X(taskloop) X(ordered) \
  X(end_ordered) X(dispatch_fini_4) X(dispatch_fini_4u) X(dispatch_fini_8) X(dispatch_fini_8u) \
  X(cancel) X(cancellationpoint) X(cancel_barrier)
// clang-format on

extern "C" {
#define PSK_DECLARE(fn) __attribute__((visibility("hidden"))) void psk_##fn();
PSK_NATIVE(PSK_DECLARE)
#undef PSK_DECLARE
}

namespace poolshim::abi::openmp::kmpc {

void* native_function(const char* name) {
  constexpr size_t kPrefix = sizeof "__kmpc_" - 1;
  if (strncmp(name, "__kmpc_", kPrefix) != 0) return nullptr;
  const char* fn = name + kPrefix;
#define PSK_MATCH(f) \
  if (strcmp(fn, #f) == 0) return reinterpret_cast<void*>(&psk_##f);
  PSK_NATIVE(PSK_MATCH)
#undef PSK_MATCH
  return nullptr;
}

// The runtime's omp_* functions (runtime_table.cpp, by name), but not the locks (libomp's
// omp_lock_t and omp_nest_lock_t are one pointer each, where the runtime's nest lock is libgomp's
// 16 bytes) nor the memory allocators (the runtime's omp_alloc hands out libgomp's memory, which
// libomp's omp_free could not take back).
// GOMP_* functions (libomp implements libgomp's ABI too) the same way: the runtime's by name.
bool runtime_name_native(const char* name) {
  const bool omp = strncmp(name, "omp_", 4) == 0;
  if (!omp && strncmp(name, "GOMP_", 5) != 0) return false;
  if (strstr(name, "_lock") != nullptr || strstr(name, "alloc") != nullptr ||
      strstr(name, "free") != nullptr)
    return false;
  namespace rows = symbols::openmp_rows;
  for (size_t row = 0; row < rows::kCount; ++row)
    if (strcmp(rows::name(row), name) == 0) return runtime_function(row) != nullptr;
  return false;
}

// omp_* functions that libomp serves right from any thread, a team's or not: the locks (libomp
// registers a thread it does not know), the clocks and the device, place and tool queries, which
// read no team. One string, not an array of pointers: nothing to relocate at load.
bool omp_name_runs_anywhere(const char* name) {
  static const char kNames[] =
      " omp_get_wtime omp_get_wtick omp_get_num_procs omp_get_num_devices omp_get_initial_device"
      " omp_is_initial_device omp_get_device_num omp_get_max_task_priority omp_display_env"
      " omp_get_num_places omp_get_place_num_procs omp_get_place_proc_ids omp_control_tool"
      " omp_get_affinity_format ";
  if (strncmp(name, "omp_", 4) != 0) return false;
  if (strstr(name, "_lock") != nullptr) return true;
  const size_t n = strlen(name);
  for (const char* p = strstr(kNames, name); p != nullptr; p = strstr(p + 1, name))
    if (p[-1] == ' ' && p[n] == ' ') return true;
  return false;
}

}  // namespace poolshim::abi::openmp::kmpc
