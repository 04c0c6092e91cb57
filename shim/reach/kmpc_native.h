// Which OpenMP imports the native __kmpc runtime serves (POOLSHIM_KMPC=shim), by name only: the
// gate (abi/openmp/kmpc/gate.cpp) runs a process natively only if no loaded module imports a
// name that blocks it, and `poolshim audit` and `info --pools` tell the same from a module's
// symbols. The names are symbols/kmpc_native.def and symbols/openmp_native.def.
#pragma once

namespace poolshim::reach {

// __kmpc_<name> is one of the native entry points (symbols/kmpc_native.def).
bool kmpc_name_native(const char* name);
// An omp_* or GOMP_* name whose row the native runtime implements (symbols/openmp_native.def),
// but not the locks (libomp's omp_lock_t and omp_nest_lock_t are one pointer each, where the
// runtime's nest lock is libgomp's 16 bytes) nor the memory allocators (the runtime's omp_alloc
// hands out libgomp's memory, which libomp's omp_free could not take back).
bool openmp_name_native(const char* name);
// Whether a module that imports `name` keeps the process's __kmpc calls on libomp: a __kmpc_*
// function outside the native set, a GOMP_* one the runtime does not run, an omp_* one that
// neither runs natively nor is one libomp serves right from any thread, a team's or not (the
// locks: libomp registers a thread it does not know; the clocks and the device, place and tool
// queries, which read no team). Other names never block.
bool kmpc_import_blocks(const char* name);

}  // namespace poolshim::reach
