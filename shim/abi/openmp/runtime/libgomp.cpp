// Finding libgomp's own definitions (libgomp.h).
#include "abi/openmp/runtime/libgomp.h"

#include <dlfcn.h>

#include <atomic>

#include "base/private_library.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// The private handle of step 2. Written once (release) by the first row that needs it; a race
// opens the library twice, which dlopen answers with the same handle (reference counted).
std::atomic<void*> g_handle{nullptr};
std::atomic<bool> g_open_failed{false};

void* libgomp_handle() {
  void* h = g_handle.load(std::memory_order_acquire);
  if (h != nullptr || g_open_failed.load(std::memory_order_relaxed)) return h;
  base::PrivateLibrary lib = base::open_private(kLibgomp, nullptr, 0, nullptr);
  if (lib.handle == nullptr) {
    g_open_failed.store(true, std::memory_order_relaxed);
    return nullptr;
  }
  g_handle.store(lib.handle, std::memory_order_release);
  return lib.handle;
}

void* not_ours(void* sym) { return base::is_ours(sym) ? nullptr : sym; }

}  // namespace

void* real_function(const char* name, const char* version) {
  if (void* sym = not_ours(dlvsym(RTLD_NEXT, name, version))) return sym;
  if (void* h = libgomp_handle())
    if (void* sym = not_ours(dlvsym(h, name, version))) return sym;
  return nullptr;
}

}  // namespace poolshim::abi::openmp::runtime
