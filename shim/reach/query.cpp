// query.h: every answer about a loaded module is computed inside a dl_iterate_phdr callback
// (base/modules.h), where the module cannot be unloaded while its tables are read.
#include "reach/query.h"

#include <elf.h>
#include <stdio.h>

#include "base/modules.h"
#include "elf/reader.h"
#include "reach/registry.h"

namespace poolshim::reach {
namespace {

using base::LoadedModule;

JudgedModule view(const ModuleRecord& r) {
  JudgedModule j;
  j.path = r.path;
  j.display = r.display;
  j.verdict = &r.effective;
  j.reason = r.reason;
  return j;
}

void judge_callback(const LoadedModule& m, void*) { record_for(m); }

struct ImportCtx {
  bool (*unwanted)(const char*);
  uintptr_t skip_bias;
  char* buf;
  size_t cap;
  bool found = false;
};

void import_callback(const LoadedModule& m, void* p) {
  ImportCtx* c = static_cast<ImportCtx*>(p);
  if (c->found || m.bias == c->skip_bias) return;
  elf::Reader r;
  if (!r.open_loaded(m.bias, m.phdr, m.phnum)) return;
  elf::Symbol s;
  for (size_t i = 0; i < r.dynsym_count(); ++i) {
    if (!r.dynsym(i, &s) || s.defined() || s.name == nullptr || !c->unwanted(s.name)) continue;
    snprintf(c->buf, c->cap, "%s calls %s", m.main_executable ? "the executable" : m.name, s.name);
    c->found = true;
    return;
  }
}

struct SurfaceCtx {
  JudgedFn fn;
  void* ctx;
};

void surface_callback(const LoadedModule& m, void* p) {
  SurfaceCtx* c = static_cast<SurfaceCtx*>(p);
  // A full registry (over a thousand modules) cannot give strings that outlive the call.
  const ModuleRecord* r = record_for(m);
  if (r == nullptr || !r->effective.carries_surface()) return;
  c->fn(view(*r), c->ctx);
}

void private_pthreadpool_callback(const JudgedModule& m, void* ctx) {
  const ModuleVerdict& v = *m.verdict;
  if (v.surface[kExecutorch].verdict != Verdict::absent &&
      v.surface[kPthreadpool].verdict == Verdict::unreachable)
    *static_cast<bool*>(ctx) = true;
}

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
  elf::Reader r;
  if (!r.open_loaded(m.bias, m.phdr, m.phnum)) return;
  elf::Symbol s;
  if (r.find_dynsym(c->name, &s) == 0 || !s.defined() || s.shndx == SHN_ABS) return;
  if (s.type != STT_FUNC && s.type != STT_OBJECT && s.type != STT_NOTYPE) return;  // TLS, IFUNC
  c->result = reinterpret_cast<const void*>(m.bias + s.value);
}

}  // namespace

void judge_loaded_modules() { base::for_each_module(judge_callback, nullptr); }

size_t judged_count() { return record_count(); }

bool judged_module(size_t i, JudgedModule* out) {
  const ModuleRecord* r = record_at(i);
  if (r == nullptr) return false;
  *out = view(*r);
  return true;
}

void for_each_loaded_with_surface(JudgedFn fn, void* ctx) {
  SurfaceCtx c{fn, ctx};
  base::for_each_module(surface_callback, &c);  // the main executable comes first
}

bool find_unwanted_import(bool (*unwanted)(const char* name), uintptr_t skip_bias, char* buf,
                          size_t cap) {
  ImportCtx c{unwanted, skip_bias, buf, cap};
  if (cap > 0) buf[0] = '\0';
  base::for_each_module(import_callback, &c);
  return c.found;
}

bool executorch_module_with_unreachable_pthreadpool_loaded() {
  bool found = false;
  for_each_loaded_with_surface(private_pthreadpool_callback, &found);
  return found;
}

bool pthreadpool_calls_reach_shim(const void* addr_in_module) {
  // The main executable first (outside any callback), so its precedence is applied.
  ensure_main_executable_judged();
  bool reach = true;
  base::with_module_at(addr_in_module, reach_callback, &reach);
  return reach;
}

const void* module_own_definition(const void* addr_in_module, const char* mangled_name) {
  if (mangled_name == nullptr || *mangled_name == '\0') return nullptr;
  DefCtx c{mangled_name, nullptr};
  base::with_module_at(addr_in_module, definition_callback, &c);
  return c.result;
}

}  // namespace poolshim::reach
