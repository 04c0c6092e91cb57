// The runtime's allocate-or-abort helpers (xmalloc.h).
#include "abi/openmp/runtime/xmalloc.h"

#include <stdlib.h>
#include <unistd.h>

#include "base/text.h"

namespace poolshim::abi::openmp::runtime {
namespace {

[[noreturn]] void out_of_memory(size_t size) {
  char buf[128];
  base::Text t(buf);
  t.appendf("poolshim: openmp: out of memory allocating %zu bytes\n", size);
  ssize_t ignored = ::write(2, t.c_str(), t.size());
  (void)ignored;
  ::abort();
}

}  // namespace

void* xmalloc(size_t size) {
  void* p = malloc(size);
  if (p == nullptr) out_of_memory(size);
  return p;
}

void* xcalloc(size_t n, size_t size) {
  void* p = calloc(n, size);
  if (p == nullptr) out_of_memory(n * size);
  return p;
}

void* xaligned_alloc(size_t align, size_t size) {
  void* p = nullptr;
  if (posix_memalign(&p, align, size) != 0) out_of_memory(size);
  return p;
}

}  // namespace poolshim::abi::openmp::runtime
