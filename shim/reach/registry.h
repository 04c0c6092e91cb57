// The verdicts of the modules loaded in this process, judged once per module and kept for the
// life of the process. Internal to reach/: the rest of the shim asks through query.h.
//
// Records are immutable once published, never freed, and their strings are the registry's own
// copies, so a pointer to a record stays valid after its module is unloaded. A module is
// identified by (load bias, program-header address, path) and, once the dynamic linker has
// unloaded anything since the record was last confirmed, by a fingerprint of its program headers
// and dynamic symbols too: a module dlclose()d and a different one loaded at the same address
// (even under the same path) gets a record of its own (docs/design.md, "Module lifetime").
#pragma once
#include <atomic>
#include <cstddef>

#include "base/modules.h"
#include "reach/verdict.h"
#include "base/fork_hooks.h"

namespace poolshim::reach {

struct ModuleRecord {
  uintptr_t bias = 0;
  const void* phdr = nullptr;
  // The strings are set before a record is published (nullptr defaults keep the 1024-record
  // table in .bss: a non-zero default put 472 KiB of it in .data, written in every process).
  const char* path = nullptr;     // as the dynamic linker knows it; "" for the main executable
  const char* display = nullptr;  // for log lines: the main executable's real path, else path
  ModuleVerdict alone;            // judged from the module alone
  ModuleVerdict effective;        // after the main executable's precedence (see verdict.h)
  const char* reason = nullptr;   // describe_reasons(effective), for poolshim_get_modules
  uint64_t fingerprint = 0;       // program headers + dynamic symbols (a different build differs)
  // The unload count (base::LoadedModule::unloads) at which this record was last confirmed to be
  // the module mapped at `bias`; when the count moved on, the fingerprint is checked again.
  mutable std::atomic<unsigned long long> confirmed_unloads{0};
};

// The record for m, judging the module on first sight. Call it only from inside a
// dl_iterate_phdr callback (base/modules.h). Returns nullptr when the registry is full; then use
// judge_loaded() instead.
const ModuleRecord* record_for(const base::LoadedModule& m);

// Judges m without recording it (the main executable's precedence applied when it is known).
ModuleVerdict judge_loaded(const base::LoadedModule& m);

// Makes sure the main executable has a record, so that later records can apply its precedence.
// Calls dl_iterate_phdr: never call it from inside a callback.
void ensure_main_executable_judged();

// Every record made so far, in creation order (including modules since unloaded).
size_t record_count();
const ModuleRecord* record_at(size_t i);

// fork (lifecycle/fork.cpp's table): the registry's append lock.
POOLSHIM_FORK_HOOK void registry_atfork_prepare();
POOLSHIM_FORK_HOOK void registry_atfork_parent();
POOLSHIM_FORK_HOOK void registry_atfork_child();

}  // namespace poolshim::reach
