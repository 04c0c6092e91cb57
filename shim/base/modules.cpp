// dl_iterate_phdr wrappers (see modules.h for what a callback may do).
#include "base/modules.h"

#include <cstddef>

namespace poolshim::base {
namespace {

bool has_counters(size_t size) {
  // dlpi_adds/dlpi_subs exist when the C library passes a dl_phdr_info that large (glibc >= 2.4).
  return size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(dl_phdr_info::dlpi_subs);
}

LoadedModule describe(const dl_phdr_info* info, size_t size, bool first) {
  LoadedModule m;
  m.unloads = has_counters(size) ? info->dlpi_subs : 0;
  m.bias = info->dlpi_addr;
  m.phdr = info->dlpi_phdr;
  m.phnum = info->dlpi_phnum;
  m.name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  // glibc lists the main program first; its name is "" (the vDSO and libraries have names).
  m.main_executable = first;
  return m;
}

// True when addr lies inside one of m's PT_LOAD segments.
bool module_contains(const LoadedModule& m, uintptr_t addr) {
  if (m.phdr == nullptr || addr < m.bias) return false;
  uintptr_t rel = addr - m.bias;
  for (size_t i = 0; i < m.phnum; ++i) {
    const ElfW(Phdr)& p = m.phdr[i];
    if (p.p_type == PT_LOAD && rel >= p.p_vaddr && rel - p.p_vaddr < p.p_memsz) return true;
  }
  return false;
}

// One walk for every question: the module at an address (stop there), the first module only
// (the main executable), or all of them.
struct WalkCtx {
  ModuleFn fn;
  void* ctx;
  const void* addr;  // nullptr: any module
  bool only_first;
  bool first;
  bool found;
};

int walk_callback(dl_phdr_info* info, size_t size, void* p) {
  WalkCtx* c = static_cast<WalkCtx*>(p);
  LoadedModule m = describe(info, size, c->first);
  c->first = false;
  if (c->addr != nullptr && !module_contains(m, reinterpret_cast<uintptr_t>(c->addr))) return 0;
  c->found = true;
  c->fn(m, c->ctx);
  return c->addr != nullptr || c->only_first ? 1 : 0;  // 1 stops the walk
}

int loads_callback(dl_phdr_info* info, size_t size, void* p) {
  if (has_counters(size)) *static_cast<unsigned long long*>(p) = info->dlpi_adds;
  return 1;  // the counter is the same in every entry: stop at the first
}

int unloads_callback(dl_phdr_info* info, size_t size, void* p) {
  if (has_counters(size)) *static_cast<unsigned long long*>(p) = info->dlpi_subs;
  return 1;
}

}  // namespace

unsigned long long loaded_generation() {
  unsigned long long adds = 0;
  dl_iterate_phdr(loads_callback, &adds);
  return adds;
}

unsigned long long unloaded_generation() {
  unsigned long long subs = 0;
  dl_iterate_phdr(unloads_callback, &subs);
  return subs;
}

bool with_module_at(const void* addr, ModuleFn fn, void* ctx) {
  if (addr == nullptr) return false;
  WalkCtx c{fn, ctx, addr, false, true, false};
  dl_iterate_phdr(walk_callback, &c);
  return c.found;
}

void for_each_module(ModuleFn fn, void* ctx) {
  WalkCtx c{fn, ctx, nullptr, false, true, false};
  dl_iterate_phdr(walk_callback, &c);
}

void with_main_executable(ModuleFn fn, void* ctx) {
  WalkCtx c{fn, ctx, nullptr, true, true, false};
  dl_iterate_phdr(walk_callback, &c);
}

}  // namespace poolshim::base
