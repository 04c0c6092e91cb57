// The native __kmpc runtime: the entry points clang emits for host OpenMP code (LLVM libomp's
// ABI, symbols/kmpc.def), mapped onto the runtime that serves libgomp's ABI (runtime/), so that a
// clang-built region runs as a team of the shim's threads. Only with POOLSHIM_KMPC=shim, and only
// in a process that calls nothing of libomp's beyond them (gate.cpp): libomp's entry points take
// libomp's own thread ids, so the two cannot share a region.
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::abi::openmp::kmpc {

// The native function for a __kmpc_* name, nullptr for one the runtime does not implement
// (reach/kmpc_native.h has the names, and which omp_* and GOMP_* names run natively beside them).
void* native_function(const char* name);

// Whether the __kmpc rows run natively in this process: decided once, on the first resolution
// of a row of libomp's (forward.cpp), by POOLSHIM_KMPC, POOLSHIM_OPENMP, POOLSHIM_DISABLE and the
// imports of the modules loaded then (gate.cpp). Logs the decision and its reason at info.
bool native_in_process();

// The end of a taskgroup whose __kmpc task reductions are `data` (task_reduction.cpp; nullptr:
// none), once its tasks are complete: each member's copy combined into its item, then freed.
void taskgroup_reductions_end(void* data);

}  // namespace poolshim::abi::openmp::kmpc

// libomp's ident_t: the source location the compiler passes first; only passed through.
struct ident_t;
// The outlined body of a parallel region: (global thread id, bound thread id, shared vars...).
using kmpc_micro = void (*)(int32_t* gtid, int32_t* btid, ...);

extern "C" {
// invoke.cpp: calls fn(gtid, btid, argv[0], ..., argv[argc - 1]); argv holds at least 4 entries.
__attribute__((visibility("hidden"))) void psk_invoke_microtask(kmpc_micro fn, int32_t* gtid,
                                                                int32_t* btid, int32_t argc,
                                                                void** argv);
}
