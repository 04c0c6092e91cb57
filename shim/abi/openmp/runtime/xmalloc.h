// Allocation in the native runtime, as libgomp's gomp_malloc family: memory the runtime needs to
// go on (a task's data, a construct's block, a doacross vector) never fails softly. On failure
// one line, "poolshim: openmp: out of memory allocating N bytes", goes to stderr with one
// write(2) (no allocation, no stdio), then the process aborts (libgomp's gomp_fatal ends it too).
#pragma once
#include <stddef.h>

namespace poolshim::abi::openmp::runtime {

void* xmalloc(size_t size);                       // malloc(size)
void* xcalloc(size_t n, size_t size);             // calloc(n, size): zeroed
void* xaligned_alloc(size_t align, size_t size);  // posix_memalign: align a power of 2, a
                                                  // multiple of sizeof(void*)

}  // namespace poolshim::abi::openmp::runtime
