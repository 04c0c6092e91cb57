#include "abi/executorch_forward.h"

#include <pthread.h>

#include <atomic>

#include "diag/caller.h"
#include "diag/log.h"
#include "elf/module_query.h"

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

// The module's own .dynsym entry, read by the ELF layer (no dlopen, no global-scope lookup, so
// never the shim's own definition, and it works for the main executable too).
void* lookup(EtSym sym, const void* return_address) {
  return const_cast<void*>(elf::module_own_definition(return_address, et_symbol(sym).mangled));
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
    hit = lookup(sym, return_address);
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
