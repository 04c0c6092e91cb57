// LLVM's (or Intel's) OpenMP runtime, as the __kmpc_* rows of symbols/kmpc.def reach it.
//
// Those rows have no native implementation yet (issue 35): a clang-built module's __kmpc call
// enters the shim's trampoline and is sent here, to the runtime the module was linked against,
// so the process behaves as without the shim. That runtime keeps its own threads.
#pragma once

namespace poolshim::abi::openmp {

// The version node every __kmpc_* function has in libomp.so.5 and libiomp5.so.
constexpr const char* kLibompVersion = "VERSION";

// The real runtime's definition of name@VERSION, nullptr when no copy of the runtime is loaded:
//   1. dlvsym(RTLD_NEXT, ...): the libomp the program itself links (the global scope);
//   2. a loaded libomp.so.5, libiomp5.so or libomp.so, by soname (RTLD_NOLOAD): the one a
//      dlopen()ed module brought into its own local scope, as Python extensions do;
//   3. any other loaded object that defines it: a copy a wheel vendors under another name.
// Nothing is loaded that was not: a __kmpc call comes from a module linked against a runtime,
// which is then loaded already. An address inside the shim is refused at each step. No lock: the
// handle found in step 2 or 3 is kept in an atomic, and a race looks it up twice.
void* libomp_function(const char* name);

}  // namespace poolshim::abi::openmp
