#include "abi/executorch_forward.h"

#include <dlfcn.h>
#include <pthread.h>

#include <atomic>

#include "diag/caller.h"
#include "diag/log.h"

namespace poolshim::abi {
namespace {

// A small open table of (module base, symbol) -> definition. Entries are published with a
// release store of `base` after `definition` is written; readers acquire `base`. Lookups that
// miss take g_mutex and do the dlopen/dlsym work once.
struct Entry {
  std::atomic<const void*> base{nullptr};
  EtSym sym{};
  void* definition = nullptr;
};
constexpr size_t kSlots = 256;
Entry g_table[kSlots];
pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

void* find(const void* base, EtSym sym) {
  for (Entry& e : g_table) {
    const void* b = e.base.load(std::memory_order_acquire);
    if (b == nullptr) return reinterpret_cast<void*>(-1);  // end of the filled part: a miss
    if (b == base && e.sym == sym) return e.definition;
  }
  return reinterpret_cast<void*>(-1);
}

// Looks the symbol up in the module's own scope. dlsym on a handle searches that object first
// (then its dependencies), never the global scope where the shim's definition would win. The
// result must lie inside the caller's module: otherwise the module has no definition of its own.
void* lookup(const void* base, EtSym sym, const void* return_address) {
  Dl_info info;
  if (dladdr(return_address, &info) == 0 || info.dli_fname == nullptr) return nullptr;
  void* handle = dlopen(info.dli_fname[0] ? info.dli_fname : nullptr, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* def = dlsym(handle, et_symbol(sym).mangled);
  dlclose(handle);
  Dl_info where;
  if (def == nullptr || dladdr(def, &where) == 0 || where.dli_fbase != base) return nullptr;
  return def;
}

}  // namespace

void* own_definition(EtSym sym, const void* return_address) {
  const void* base = diag::caller_base(return_address);
  if (base == nullptr) return nullptr;
  void* hit = find(base, sym);
  if (hit != reinterpret_cast<void*>(-1)) return hit;

  pthread_mutex_lock(&g_mutex);
  hit = find(base, sym);  // another thread may have filled it meanwhile
  if (hit == reinterpret_cast<void*>(-1)) {
    hit = lookup(base, sym, return_address);
    for (Entry& e : g_table) {
      if (e.base.load(std::memory_order_relaxed) != nullptr) continue;
      e.sym = sym;
      e.definition = hit;
      e.base.store(base, std::memory_order_release);
      break;
    }  // table full: we just do not cache
    POOLSHIM_LOG(debug, "own definition of %s in %s: %p", et_symbol(sym).demangled,
                 diag::caller_module(return_address), hit);
  }
  pthread_mutex_unlock(&g_mutex);
  return hit;
}

}  // namespace poolshim::abi
