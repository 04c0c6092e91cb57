// The thread-pool surfaces the shim takes over, as mangled symbol names: which names belong to
// a surface, and which are its entry points (how a module obtains a pool). The names come from
// the tables of what the shim exports (symbols/executorch.def, symbols/pthreadpool.def,
// symbols/openmp.def).
#pragma once
#include <cstddef>

namespace poolshim::reach {

enum Surface : unsigned { kExecutorch = 0, kPthreadpool = 1, kOpenmp = 2, kSurfaceCount = 3 };

// "executorch" / "pthreadpool" / "openmp".
const char* surface_name(Surface s);

// A symbol of the surface: for ExecuTorch, anything in the namespace of an entry point
// (executorch::extension::threadpool, torch::executorch::threadpool; const members included)
// and any overload of the table's other functions (executorch::extension::parallel_for,
// get_thread_num, set_thread_num); for pthreadpool, any pthreadpool_* name; for OpenMP, a
// GOMP_* or omp_* name of openmp.def's table (the host part of libgomp's ABI: a module that
// defines them carries a copy of libgomp, a static one or its own).
bool is_surface_symbol(Surface s, const char* name);

// An entry point: get_threadpool() and get_pthreadpool() in either namespace;
// pthreadpool_create; for OpenMP, what starts a team: GOMP_parallel* (not GOMP_parallel_end) and
// GOMP_teams*. A module that obtains its pool through one of these calls through the dynamic
// linker exactly when a relocation names it.
bool is_entry_symbol(Surface s, const char* name);

// What starts a team in a runtime whose copy, linked into a module and not exported, no preload
// reaches (verdict.cpp's .symtab pass): the entry points, and for OpenMP also LLVM's and Intel's
// __kmpc_fork_call (libomp.a linked in, as clang's -static-openmp does). The shim does not judge
// the __kmpc ABI's exported copies and clients: they go on to libomp (docs/openmp.md).
bool is_private_copy_entry(Surface s, const char* name);

// The shim itself (or a newer copy of it): it exports this C API name.
bool is_provider_symbol(const char* name);

}  // namespace poolshim::reach
