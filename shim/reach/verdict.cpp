// judge(): one pass over the dynamic symbols, one over the relocations, one over .symtab.
#include "reach/verdict.h"

#include <elf.h>

#include <cstring>

#include "base/text.h"
#include "elf/direct_calls.h"

namespace poolshim::reach {

using elf::Kind;
using elf::Reader;
using elf::Reloc;
using elf::RelocClass;
using elf::Symbol;

namespace {

constexpr size_t kMaxTargets = 128;
constexpr size_t kMaxSlots = 4;

// A GOT slot that a relocation naming one of the module's own entry points fills at run time.
struct Slot {
  uint64_t offset;  // r_offset: link-time virtual address of the slot
  uint64_t value;   // st_value of the module's own definition
  const char* name;
};

// What was seen of one surface in one module.
struct Tally {
  size_t dyn_defs = 0;           // exported definitions of surface symbols
  size_t dyn_entry_defs = 0;     // ... of entry points
  size_t own_call_relocs = 0;    // relocations naming a surface symbol this module defines
  size_t own_entry_relocs = 0;   // JUMP_SLOT / GLOB_DAT naming an entry point this module defines
  size_t any_relocs = 0;         // relocations naming any surface symbol (defined here or not)
  size_t symtab_entry_defs = 0;  // .symtab definitions of entry points (any binding)
  const char* protected_sym = nullptr;
  const char* hidden_sym = nullptr;
  const char* entry_sym = nullptr;         // an exported entry point
  const char* symtab_entry_sym = nullptr;  // an entry point defined in .symtab
  // Exported function definitions of the surface: where a direct call would land.
  uint64_t targets[kMaxTargets];
  const char* target_names[kMaxTargets];
  size_t ntargets = 0;
  Slot slots[kMaxSlots];
  size_t nslots = 0;
};

void set_symbol(SurfaceVerdict* v, const char* name) {
  if (name != nullptr) base::Text(v->symbol).append(name);
}

void unreachable(SurfaceVerdict* v, Reason r, const char* sym) {
  v->verdict = Verdict::unreachable;
  v->reason = r;
  set_symbol(v, sym);
}

bool is_call_reloc(RelocClass c) { return c == RelocClass::jump_slot || c == RelocClass::glob_dat; }

void tally_dynsym(const Reader& r, Tally* t, bool* provider) {
  Symbol s;
  for (size_t i = 1; i < r.dynsym_count(); ++i) {
    if (!r.dynsym(i, &s) || s.name == nullptr || !s.defined()) continue;
    if (is_provider_symbol(s.name)) *provider = true;
    for (unsigned k = 0; k < kSurfaceCount; ++k) {
      Surface surf = static_cast<Surface>(k);
      if (!is_surface_symbol(surf, s.name)) continue;
      ++t[k].dyn_defs;
      // OpenMP: only the entry points. libgomp's own code calls its other exported functions
      // directly (hidden aliases), which says nothing about its clients.
      bool target = surf != kOpenmp || is_entry_symbol(surf, s.name);
      if (target && s.type == STT_FUNC && s.value != 0 && t[k].ntargets < kMaxTargets) {
        t[k].targets[t[k].ntargets] = s.value;
        t[k].target_names[t[k].ntargets++] = s.name;
      }
      if (s.visibility == STV_PROTECTED && t[k].protected_sym == nullptr)
        t[k].protected_sym = s.name;
      if (is_entry_symbol(surf, s.name)) {
        ++t[k].dyn_entry_defs;
        if (t[k].entry_sym == nullptr) t[k].entry_sym = s.name;
      }
    }
  }
}

void tally_relocs(const Reader& r, Tally* t) {
  Reloc rel;
  Symbol s;
  size_t n = r.reloc_count();
  for (size_t i = 0; i < n; ++i) {
    if (!r.reloc(i, &rel) || rel.sym == 0 || !r.dynsym(rel.sym, &s) || s.name == nullptr) continue;
    for (unsigned k = 0; k < kSurfaceCount; ++k) {
      Surface surf = static_cast<Surface>(k);
      if (!is_surface_symbol(surf, s.name)) continue;
      ++t[k].any_relocs;
      if (!s.defined() || rel.cls == RelocClass::other) continue;
      ++t[k].own_call_relocs;
      if (is_call_reloc(rel.cls) && is_entry_symbol(surf, s.name)) {
        ++t[k].own_entry_relocs;
        if (t[k].nslots < kMaxSlots) t[k].slots[t[k].nslots++] = Slot{rel.offset, s.value, s.name};
      }
    }
  }
}

// .symtab keeps what the dynamic table hides: an entry point that is local or hidden there and
// not exported is a private copy no preload can replace (is_private_copy_entry: for OpenMP also
// a linked-in libomp's __kmpc_fork_call).
// `symtab` may be another reader than `r` (the file behind a loaded module).
void tally_symtab(const Reader& r, const Reader& symtab, Tally* t) {
  Symbol s, exported;
  for (size_t i = 1; i < symtab.symtab_count(); ++i) {
    if (!symtab.symtab(i, &s) || s.name == nullptr || !s.defined()) continue;
    for (unsigned k = 0; k < kSurfaceCount; ++k) {
      Surface surf = static_cast<Surface>(k);
      if (!is_private_copy_entry(surf, s.name)) continue;
      ++t[k].symtab_entry_defs;
      if (t[k].symtab_entry_sym == nullptr) t[k].symtab_entry_sym = s.name;
      bool local =
          s.bind == STB_LOCAL || s.visibility == STV_HIDDEN || s.visibility == STV_INTERNAL;
      if (local && t[k].hidden_sym == nullptr && r.find_dynsym(s.name, &exported) == 0)
        t[k].hidden_sym = s.name;
    }
  }
}

// In a loaded module the relocations have been applied: a GOT slot naming an entry point holds
// where the module's calls really go. The module's own definition there means the lookup found
// its copy first (RTLD_DEEPBIND puts the module's own scope ahead of the global one; a dlmopen
// namespace holds no shim). A lazily bound JUMP_SLOT not yet called still points into the
// module's PLT: no evidence, the static verdict stands. Returns the symbol, or nullptr.
const char* resolved_to_self(const Reader& r, const Tally& a) {
  if (r.image().is_file()) return nullptr;
  for (size_t i = 0; i < a.nslots; ++i) {
    const uint8_t* p = r.image().at_vaddr(a.slots[i].offset, 8);
    if (p == nullptr) continue;
    // Aligned 8-byte GOT entries are written whole by the dynamic linker: no torn reads.
    if (elf::load<uint64_t>(p) == r.image().bias() + a.slots[i].value) return a.slots[i].name;
  }
  return nullptr;
}

}  // namespace

const char* verdict_text(Verdict v) {
  switch (v) {
    case Verdict::redirected: return "redirected";
    case Verdict::unreachable: return "unreachable";
    case Verdict::absent: break;
  }
  return "absent";
}

const char* reason_text(Reason r) {
  switch (r) {
    case Reason::main_executable: return "defined in the main executable";
    case Reason::static_executable: return "statically linked executable";
    case Reason::hidden_copy: return "hidden copy";
    case Reason::protected_visibility: return "protected visibility";
    case Reason::symbolic: return "linked -Bsymbolic";
    case Reason::bound_locally:
      return "bound locally: called directly, not through the dynamic linker; -Bsymbolic-functions "
             "or LTO";
    case Reason::executable_first: return "the main executable's exported copy comes first";
    case Reason::resolved_to_self:
      return "its calls resolve to its own copy: RTLD_DEEPBIND, dlmopen, or the shim is not ahead "
             "of it";
    case Reason::none: break;
  }
  return "";
}

bool ModuleVerdict::carries_surface() const {
  if (provider) return false;
  for (const SurfaceVerdict& s : surface)
    if (s.verdict != Verdict::absent && !s.unused_copy) return true;
  return false;
}

bool ModuleVerdict::any_unreachable() const {
  if (provider) return false;
  for (const SurfaceVerdict& s : surface)
    if (s.verdict == Verdict::unreachable) return true;
  return false;
}

ModuleVerdict judge(const Reader& r, bool main_executable, const Reader* symtab_source) {
  const Reader& symtab = symtab_source != nullptr ? *symtab_source : r;
  ModuleVerdict v;
  v.kind = r.kind();
  v.problems = r.problems();
  v.stripped = !symtab.has_symtab();
  v.main_executable =
      main_executable || v.kind == Kind::executable || v.kind == Kind::static_executable;
  if (!r.ok()) return v;

  Tally t[kSurfaceCount];
  tally_dynsym(r, t, &v.provider);
  tally_relocs(r, t);
  tally_symtab(r, symtab, t);
  if (v.provider) return v;  // the shim provides the surfaces; it is not a copy of them

  for (unsigned k = 0; k < kSurfaceCount; ++k) {
    const Tally& a = t[k];
    SurfaceVerdict* out = &v.surface[k];
    out->uses_linker = a.any_relocs > 0;
    v.exports_entry[k] = a.dyn_entry_defs > 0;
    if (v.main_executable) {
      if (a.dyn_defs == 0 && a.symtab_entry_defs == 0) continue;  // absent (or only a client)
      const char* sym = a.entry_sym != nullptr ? a.entry_sym : a.symtab_entry_sym;
      unreachable(
          out,
          v.kind == Kind::static_executable ? Reason::static_executable : Reason::main_executable,
          sym);
      continue;
    }
    if (a.dyn_defs == 0 && a.hidden_sym == nullptr) continue;  // absent
    if (a.hidden_sym != nullptr) {
      unreachable(out, Reason::hidden_copy, a.hidden_sym);
    } else if (a.protected_sym != nullptr) {
      unreachable(out, Reason::protected_visibility, a.protected_sym);
    } else if (r.symbolic()) {
      unreachable(out, Reason::symbolic, a.entry_sym);
    } else if (a.dyn_entry_defs > 0 ? a.own_entry_relocs == 0 : a.own_call_relocs == 0) {
      // Exported, yet the module never asks the dynamic linker for it: either its own calls
      // were resolved at link time (-Bsymbolic-functions) or by the compiler (LTO with
      // -fno-semantic-interposition), or it never calls its copy (a library that only serves
      // other modules, like Debian's libpthreadpool.so.0). Direct calls to the copy tell the two
      // apart; code that cannot be read counts as bound (the safe answer).
      elf::DirectCalls d = elf::find_direct_calls(r, a.targets, a.ntargets);
      if (d.hits > 0) {
        unreachable(out, Reason::bound_locally, a.target_names[d.first_target]);
      } else if (!d.code_readable) {
        unreachable(out, Reason::bound_locally, a.entry_sym);
      } else {
        out->verdict = Verdict::redirected;
        out->unused_copy = true;
      }
    } else if (const char* self = resolved_to_self(r, a)) {
      unreachable(out, Reason::resolved_to_self, self);
    } else {
      out->verdict = Verdict::redirected;
    }
  }
  return v;
}

const char* describe_verdict(const ModuleVerdict& v, char* buf, size_t cap) {
  base::Text text(buf, cap);
  for (unsigned k = 0; k < kSurfaceCount; ++k) {
    const SurfaceVerdict& s = v.surface[k];
    if (s.verdict == Verdict::absent) continue;
    if (text.size() > 0) text.append("; ");
    text.append(surface_name(static_cast<Surface>(k))).append(" ").append(verdict_text(s.verdict));
    if (s.reason != Reason::none) text.append(" (").append(reason_text(s.reason)).append(")");
  }
  return buf;
}

const char* describe_reasons(const ModuleVerdict& v, char* buf, size_t cap) {
  base::Text text(buf, cap);
  const SurfaceVerdict& a = v.surface[kExecutorch];
  const SurfaceVerdict& b = v.surface[kPthreadpool];
  const SurfaceVerdict& o = v.surface[kOpenmp];
  bool ua = a.verdict == Verdict::unreachable, ub = b.verdict == Verdict::unreachable;
  bool uo = o.verdict == Verdict::unreachable;
  // An OpenMP copy is always named: the C API's poolshim_module has no openmp field.
  if ((ua && ub && a.reason != b.reason) || uo) {
    for (unsigned k = 0; k < kSurfaceCount; ++k) {
      if (v.surface[k].verdict != Verdict::unreachable) continue;
      if (text.size() > 0) text.append("; ");
      text.append(surface_name(static_cast<Surface>(k))).append(": ");
      text.append(reason_text(v.surface[k].reason));
    }
  } else if (ua || ub) {
    text.append(reason_text(ua ? a.reason : b.reason));
  }
  return buf;
}

void apply_executable_precedence(ModuleVerdict* v, const ModuleVerdict& exe) {
  if (v->main_executable || v->provider) return;
  for (unsigned k = 0; k < kSurfaceCount; ++k) {
    if (!exe.exports_entry[k] || v->surface[k].verdict != Verdict::redirected) continue;
    v->surface[k].verdict = Verdict::unreachable;
    v->surface[k].reason = Reason::executable_first;
  }
}

}  // namespace poolshim::reach
