// What a preload can do for one module and one surface, decided from its ELF data alone.
//
// A preloaded definition replaces a module's copy only if the module's own uses of that copy go
// through the dynamic linker: a JUMP_SLOT / GLOB_DAT relocation that names the symbol. So, per
// surface (see surface.h), in this order:
//   absent       the module defines no symbol of the surface (it may still call one: a client);
//   unreachable  main executable     its definitions come before any preload in lookup order;
//                static executable   there is no dynamic linker at all;
//                hidden copy         an entry point is in .symtab but not exported
//                (-fvisibility=hidden); protected           a surface symbol is exported
//                STV_PROTECTED (bound locally); -Bsymbolic          DF_SYMBOLIC / DT_SYMBOLIC:
//                every reference bound locally; bound locally       the entry point is exported, no
//                call relocation names it, and
//                                    the code calls the copy directly (-Bsymbolic-functions, LTO
//                                    with -fno-semantic-interposition; direct_calls.h);
//                resolved to self    (a loaded module only) the GOT slot of that relocation already
//                                    holds the module's own definition: RTLD_DEEPBIND, dlmopen, or
//                                    a process where the shim does not come first;
//   redirected   the module calls its copy through the dynamic linker, or never calls it at all
//                (unused_copy: e.g. a pthreadpool library that only serves other modules).
// A stripped module's hidden copy leaves no trace in .dynsym: it reads as absent (see stripped).
#pragma once
#include <cstddef>
#include <cstdint>

#include "elf/reader.h"
#include "reach/surface.h"

namespace poolshim::reach {

// Same values as enum poolshim_verdict in poolshim.h.
enum class Verdict : uint8_t { absent = 0, redirected = 1, unreachable = 2 };

enum class Reason : uint8_t {
  none,
  main_executable,       // defined in the main executable
  static_executable,     // statically linked executable
  hidden_copy,           // hidden (non-exported) copy
  protected_visibility,  // protected visibility
  symbolic,              // linked -Bsymbolic
  bound_locally,         // exported but no relocation names it
  executable_first,      // the main executable exports its own copy, which wins over the preload
  resolved_to_self,      // (loaded modules) its GOT slot already holds its own copy's address
};

const char* verdict_text(Verdict v);  // "absent", "redirected", "unreachable"
const char* reason_text(Reason r);    // "" for none, else a short phrase

struct SurfaceVerdict {
  Verdict verdict = Verdict::absent;
  Reason reason = Reason::none;
  bool uses_linker = false;  // some relocation names a symbol of this surface (defined or not)
  bool unused_copy = false;  // redirected because the module never calls its own (exported) copy
  char symbol[96] = "";      // the symbol the reason is about (mangled, truncated), or ""
};

struct ModuleVerdict {
  SurfaceVerdict surface[kSurfaceCount];
  elf::Kind kind = elf::Kind::unknown;
  bool main_executable = false;
  bool provider = false;  // libpoolshim itself: it provides the surfaces, it is not a copy
  bool stripped = false;  // no .symtab (files) or unknown (loaded): hidden copies are invisible
  bool exports_entry[kSurfaceCount] = {};  // exported definition of an entry point
  uint32_t problems = 0;                   // elf::Reader::problems() at the time of judging

  // Some surface is present and used by the module itself (not absent, not an unused copy), and
  // this is not the provider. The load-time report and poolshim_get_modules list these.
  bool carries_surface() const;
  bool any_unreachable() const;
};

// Judges the module the reader has open. main_executable: the module heads the process's link
// map (for files judge() also decides from the file type). symtab_source: where to read .symtab
// from when it is not `reader` (a loaded module has none in memory; its file on disk may), or
// nullptr to use reader's own.
ModuleVerdict judge(const elf::Reader& reader, bool main_executable,
                    const elf::Reader* symtab_source = nullptr);

// "executorch redirected; pthreadpool unreachable (hidden copy)": the surfaces that are not
// absent, for log lines. Written into buf (always NUL-terminated); returns buf.
const char* describe_verdict(const ModuleVerdict& v, char* buf, size_t cap);
// Why the module is unreachable: "hidden copy", or "executorch: hidden copy; pthreadpool: linked
// -Bsymbolic" when the surfaces differ; an unreachable OpenMP copy is always named with its
// surface ("openmp: hidden copy"); "" when nothing is unreachable.
const char* describe_reasons(const ModuleVerdict& v, char* buf, size_t cap);

// In one process: when the main executable exports an entry point of a surface, every other
// module's calls to it bind to the executable's copy, ahead of the preload. Downgrades v's
// `redirected` surfaces accordingly.
void apply_executable_precedence(ModuleVerdict* v, const ModuleVerdict& executable);

}  // namespace poolshim::reach
