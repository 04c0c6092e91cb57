// The questions the rest of the shim and the command ask about modules: the one API of reach/.
// The ABI layer (abi/), the load-time report (report/) and `poolshim audit` (tools/, through
// verdict.h's judge() on files) never read the registry or the ELF reader for these answers.
//
// Every function is callable from any thread, at any time (including from constructors run by
// dlopen and from pool workers), takes no lock across a call into the dynamic linker, and never
// allocates on the heap. The first question about a module reads its dynamic tables once (kept
// in registry.h); afterwards a question costs one dl_iterate_phdr walk to find the module.
// None may be called from inside a dl_iterate_phdr callback.
#pragma once
#include <cstddef>

#include "reach/verdict.h"

namespace poolshim::reach {

// A module as judged once: the strings and the verdict stay valid for the life of the process,
// also after the module is unloaded.
struct JudgedModule {
  const char* path = "";     // as the dynamic linker knows it; "" for the main executable
  const char* display = "";  // for log lines: the main executable's real path, else path
  const ModuleVerdict* verdict = nullptr;  // after the main executable's precedence (verdict.h)
  const char* reason = "";  // describe_reasons(*verdict): why something is unreachable
};

// --- Every loaded module -------------------------------------------------------------------

// Judges every loaded module not judged yet, the main executable first.
void judge_loaded_modules();
// The modules judged so far, in the order judged, including modules since unloaded: index i is
// the same module for the life of the process (at most kMaxJudged of them).
constexpr size_t kMaxJudged = 1024;
size_t judged_count();
bool judged_module(size_t i, JudgedModule* out);

// Calls fn for each module loaded now whose verdict carries_surface(), the main executable
// first (judging those not judged yet). fn runs inside dl_iterate_phdr: it may only read and copy.
using JudgedFn = void (*)(const JudgedModule& m, void* ctx);
void for_each_loaded_with_surface(JudgedFn fn, void* ctx);

// True when some loaded module carries the ExecuTorch surface and a pthreadpool copy that the
// shim cannot reach.
bool executorch_module_with_unreachable_pthreadpool_loaded();

// --- What the loaded modules import ---------------------------------------------------------

// The first undefined dynamic symbol, in the modules loaded now (the main executable first), for
// which unwanted(name) is true, written as "<module> calls <name>" into buf (cap bytes); false,
// and buf "", when there is none. The module loaded at skip_bias is passed over (the shim: it
// defines such names, it imports none). unwanted runs inside dl_iterate_phdr: read memory only.
bool find_unwanted_import(bool (*unwanted)(const char* name), uintptr_t skip_bias, char* buf,
                          size_t cap);

// --- The module a call came from ----------------------------------------------------------

// True when the module whose code contains addr resolves its pthreadpool_* calls through the
// dynamic linker (so they reach the shim), false when it carries a private pthreadpool copy the
// shim cannot reach (hidden, protected, -Bsymbolic, bound locally, in the main executable, or
// the main executable's exported copy comes first). True for an address in no module (JIT code),
// in a module without any pthreadpool copy, and in the shim itself.
bool pthreadpool_calls_reach_shim(const void* addr_in_module);

// The address of the module's OWN definition of a dynamic symbol: the module whose code
// contains addr_in_module, its .dynsym entry named mangled_name (st_value + load bias). nullptr
// when addr is in no module, or the module does not define (export) that name, or the symbol
// is TLS, absolute or an IFUNC. Used to forward calls made on a foreign ThreadPool object to the
// calling module's own code. (A hidden definition is not in .dynsym and gives nullptr.)
const void* module_own_definition(const void* addr_in_module, const char* mangled_name);

}  // namespace poolshim::reach
