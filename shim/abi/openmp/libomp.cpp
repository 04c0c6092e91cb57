// Finding LLVM's or Intel's OpenMP runtime (libomp.h).
#include "abi/openmp/libomp.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>

#include "base/private_library.h"

namespace poolshim::abi::openmp {
namespace {

// The handle of steps 2-3 that answered last, an extra reference that is never dropped (the
// runtime then stays mapped as long as the trampolines may jump into it).
std::atomic<void*> g_handle{nullptr};

void* not_ours(void* sym) { return sym != nullptr && base::is_ours(sym) ? nullptr : sym; }

// dlvsym on an object that is already loaded; keeps the handle when it has the name.
void* lookup_loaded(const char* path, const char* name) {
  void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (h == nullptr) return nullptr;
  if (void* sym = not_ours(dlvsym(h, name, kLibompVersion))) {
    void* expected = nullptr;
    if (!g_handle.compare_exchange_strong(expected, h, std::memory_order_acq_rel)) dlclose(h);
    return sym;
  }
  dlclose(h);
  return nullptr;
}

// The loaded objects' paths, gathered first: dlopen may not be called from the callback (it
// takes the dynamic linker's lock that dl_iterate_phdr holds). The names stay valid while the
// objects are loaded; an object unloaded meanwhile fails its RTLD_NOLOAD open harmlessly.
struct Paths {
  static constexpr int kMax = 256;
  const char* path[kMax];
  int count = 0;
};

int gather(struct dl_phdr_info* info, size_t, void* data) {
  auto* p = static_cast<Paths*>(data);
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' && p->count < Paths::kMax)
    p->path[p->count++] = info->dlpi_name;
  return 0;
}

}  // namespace

void* libomp_function(const char* name) {
  if (void* sym = not_ours(dlvsym(RTLD_NEXT, name, kLibompVersion))) return sym;
  if (void* h = g_handle.load(std::memory_order_acquire))
    if (void* sym = not_ours(dlvsym(h, name, kLibompVersion))) return sym;
  static const char* const kSonames[] = {"libomp.so.5", "libiomp5.so", "libomp.so"};
  for (const char* soname : kSonames)
    if (void* sym = lookup_loaded(soname, name)) return sym;
  Paths paths;
  dl_iterate_phdr(gather, &paths);
  for (int i = 0; i < paths.count; ++i)
    if (void* sym = lookup_loaded(paths.path[i], name)) return sym;
  return nullptr;
}

}  // namespace poolshim::abi::openmp
