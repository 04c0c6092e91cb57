// module_query.h: both answers are computed inside dl_iterate_phdr callbacks, where the module
// cannot be unloaded while its tables are read.
#include "elf/module_query.h"

#include <elf.h>

#include "elf/loaded.h"
#include "elf/reader.h"
#include "elf/registry.h"

namespace poolshim::elf {
namespace {

void reach_callback(const LoadedModule& m, void* ctx) {
  bool* reach = static_cast<bool*>(ctx);
  const ModuleRecord* r = record_for(m);
  Verdict v = r != nullptr ? r->effective.surface[kPthreadpool].verdict
                           : judge_loaded(m).surface[kPthreadpool].verdict;
  *reach = v != Verdict::unreachable;
}

struct DefCtx {
  const char* name;
  const void* result;
};

void definition_callback(const LoadedModule& m, void* p) {
  DefCtx* c = static_cast<DefCtx*>(p);
  Reader r;
  if (!r.open_loaded(m.bias, m.phdr, m.phnum)) return;
  Symbol s;
  if (r.find_dynsym(c->name, &s) == 0 || !s.defined() || s.shndx == SHN_ABS) return;
  if (s.type != STT_FUNC && s.type != STT_OBJECT && s.type != STT_NOTYPE) return;  // TLS, IFUNC
  c->result = reinterpret_cast<const void*>(m.bias + s.value);
}

}  // namespace

bool pthreadpool_calls_reach_shim(const void* addr_in_module) {
  // The main executable first (outside any callback), so its precedence is applied.
  ensure_main_executable_judged();
  bool reach = true;
  with_module_at(addr_in_module, reach_callback, &reach);
  return reach;
}

const void* module_own_definition(const void* addr_in_module, const char* mangled_name) {
  if (mangled_name == nullptr || *mangled_name == '\0') return nullptr;
  DefCtx c{mangled_name, nullptr};
  with_module_at(addr_in_module, definition_callback, &c);
  return c.result;
}

}  // namespace poolshim::elf
