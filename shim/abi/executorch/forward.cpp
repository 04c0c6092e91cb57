#include "abi/executorch/forward.h"

#include <pthread.h>

#include <atomic>

#include "base/fork_hooks.h"
#include "diag/caller.h"
#include "diag/log.h"
#include "base/modules.h"
#include "reach/query.h"

namespace poolshim::abi {
namespace {

// A small table of (module base, symbol) -> definition, read lock-free.
//
// Module lifetime (docs/design.md): the key is an address, so the table is only valid for the
// dynamic linker's unload count it was filled under (g_unloads). When a module has been unloaded
// since, the next lookup clears the table under g_mutex: another module may now sit at the same
// base with other code at the cached offsets.
//
// Each entry is a seqlock: a writer (under g_mutex) makes `seq` odd, writes the fields, makes it
// even again; a reader that sees an odd or changed `seq` treats the entry as a miss. So entries
// can be cleared and reused while other threads read them.
struct Entry {
  std::atomic<unsigned> seq{0};
  std::atomic<const void*> base{nullptr};
  std::atomic<int> sym{0};
  std::atomic<void*> definition{nullptr};
};
constexpr size_t kSlots = 256;
Entry g_table[kSlots];
std::atomic<size_t> g_used{0};  // entries [0, g_used) were filled (release after the fill)
// The unload count (base::unloaded_generation) the entries are valid for. ~0: never filled.
std::atomic<unsigned long long> g_unloads{~0ull};
// Enrolled in lifecycle/fork.cpp. Held across the ELF lookup (which walks the loaded modules and
// may take the registry's mutex) and a log line, never across a call into the host.
pthread_mutex_t& g_mutex = base::g_fork_locks.executorch_forward;  // base/fork_hooks.h

void* const kMiss = reinterpret_cast<void*>(-1);

void* find(const void* base, EtSym sym) {
  size_t n = g_used.load(std::memory_order_acquire);
  for (size_t i = 0; i < n; ++i) {
    Entry& e = g_table[i];
    unsigned s1 = e.seq.load(std::memory_order_acquire);
    if (s1 & 1u) continue;
    const void* b = e.base.load(std::memory_order_relaxed);
    int sy = e.sym.load(std::memory_order_relaxed);
    void* def = e.definition.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (e.seq.load(std::memory_order_relaxed) != s1) continue;
    if (b == base && sy == static_cast<int>(sym)) return def;
  }
  return kMiss;
}

// Under g_mutex.
void write_entry(Entry& e, const void* base, int sym, void* def) {
  unsigned s = e.seq.load(std::memory_order_relaxed);
  e.seq.store(s + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  e.base.store(base, std::memory_order_relaxed);
  e.sym.store(sym, std::memory_order_relaxed);
  e.definition.store(def, std::memory_order_relaxed);
  e.seq.store(s + 2, std::memory_order_release);
}

// Under g_mutex: forget every entry (modules were unloaded).
void clear_locked() {
  size_t n = g_used.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) write_entry(g_table[i], nullptr, 0, nullptr);
  g_used.store(0, std::memory_order_release);
}

// The module's own .dynsym entry, read through reach::module_own_definition (no dlopen, no
// global-scope lookup, so never the shim's own definition, and it works for the main executable
// too).
void* lookup(EtSym sym, const void* return_address) {
  return const_cast<void*>(reach::module_own_definition(return_address, et_symbol(sym).mangled));
}

}  // namespace

void forward_atfork_prepare() { pthread_mutex_lock(&g_mutex); }
void forward_atfork_parent() { pthread_mutex_unlock(&g_mutex); }
void forward_atfork_child() { pthread_mutex_unlock(&g_mutex); }

void* own_definition(EtSym sym, const void* return_address) {
  const void* base = diag::caller_base(return_address);
  if (base == nullptr) return nullptr;
  // Read after the caller's module was loaded (its code is running), so any unload that freed
  // this base before that load is counted here.
  unsigned long long unloads = base::unloaded_generation();
  if (g_unloads.load(std::memory_order_acquire) == unloads) {
    void* hit = find(base, sym);
    if (hit != kMiss) return hit;
  }

  pthread_mutex_lock(&g_mutex);
  unsigned long long valid = g_unloads.load(std::memory_order_relaxed);
  if (valid == ~0ull || unloads > valid) {
    clear_locked();
    g_unloads.store(unloads, std::memory_order_release);
  }
  void* hit = find(base, sym);  // another thread may have filled it meanwhile
  if (hit == kMiss) {
    hit = lookup(sym, return_address);
    size_t n = g_used.load(std::memory_order_relaxed);
    if (n < kSlots) {  // table full: we just do not cache
      write_entry(g_table[n], base, static_cast<int>(sym), hit);
      g_used.store(n + 1, std::memory_order_release);
    }
    POOLSHIM_LOG(debug, "own definition of %s in %s: %p", et_symbol(sym).demangled,
                 diag::caller_module(return_address), hit);
  }
  pthread_mutex_unlock(&g_mutex);
  return hit;
}

}  // namespace poolshim::abi
