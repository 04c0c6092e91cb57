// LLVM's and Intel's OpenMP ABI (__kmpc_*) in the audit (issue 35, point 2). The reach verdicts'
// OpenMP surface is libgomp's ABI, whose regions the shim runs; a __kmpc client's calls enter the
// shim too (symbols/kmpc.def, in libomp's VERSION node) but go on to libomp or libiomp5, which
// run them on their own threads, unless POOLSHIM_KMPC=shim runs them (docs/openmp.md, "LLVM's
// and Intel's OpenMP"). What the audit says of a module here comes from its own symbols.
#pragma once
#include <string>

#include "elf/reader.h"

namespace poolshim::cli {

struct KmpcFacts {
  bool client = false;       // imports a __kmpc_* function (OpenMP code built by clang or Intel)
  bool gomp_client = false;  // ... and a GOMP_* one too (gcc-built objects in the same module)
  bool runtime = false;      // exports __kmpc_fork_call: a copy of libomp or libiomp5
  // The first import that keeps a process's __kmpc calls on libomp under POOLSHIM_KMPC=shim, as
  // the shim's gate judges it (reach/kmpc_native.h: a __kmpc_, GOMP_ or omp_ function it does not
  // run natively); "" when none. Any module's, a gcc-built one's too.
  std::string blocks_native;
};
// (A module that defines __kmpc_fork_call without exporting it carries a runtime no preload
// reaches: the reach verdicts judge it, reach/surface.h's is_private_copy_entry.)

// The facts of one module (an unreadable one has none).
KmpcFacts kmpc_facts(const elf::Reader& r);

}  // namespace poolshim::cli
