// libgomp's own definitions, as the runtime and the routing layer above it reach them.
//
// The runtime reads and writes some of libgomp's state through it (nthreads-var outside a region,
// so that code calling libgomp by handle, as threadpoolctl does, still takes effect; the device
// count; the allocators), and abi/openmp/forward.cpp forwards every row it does not run natively
// to what it finds.
#pragma once

namespace poolshim::abi::openmp::runtime {

// The soname of the libgomp opened privately in step 2 below.
constexpr const char* kLibgomp = "libgomp.so.1";

// libgomp's own definition of name@version, nullptr when no libgomp can be found:
//   1. dlvsym(RTLD_NEXT, name, version): the libgomp the program itself links (the next object
//      in the global lookup order defining that name@version).
//   2. dlvsym on the handle of "libgomp.so.1" opened with RTLD_LOCAL (base/private_library.h):
//      the libgomp a dlopen()ed module brought into its own local scope (a Python extension such
//      as libtorch_cpu), or, when none is loaded, Debian's, loaded privately.
// An address inside the shim is refused at each step (it would call itself forever). No lock:
// safe from any library's constructor and across fork().
void* real_function(const char* name, const char* version);

}  // namespace poolshim::abi::openmp::runtime
