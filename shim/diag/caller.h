// Who called us: the module (shared object or executable) whose code holds a return address.
#pragma once
#include "diag/log_sites.h"
#include "base/fork_hooks.h"

namespace poolshim::diag {

// Path of the module containing addr, as the dynamic linker knows it ("" when unknown; the
// main executable's path is read from /proc/self/exe). The string lives as long as the module.
const char* caller_module(const void* addr);

// Base address of that module (its load bias as dladdr reports dli_fbase), nullptr if unknown.
const void* caller_base(const void* addr);

// Log `poolshim: <what> from <module> -> <result>` at info, once per (site, module) pair
// (log_sites.h names the sites). No cost when logging is below info.
void log_first_call(LogSite site, const void* ret_addr, const char* what, const char* result_fmt,
                    ...) __attribute__((format(printf, 4, 5)));

// The same at warn level: `poolshim: warning: <what> from <module>: <detail>`, once per
// (site, module) pair.
void warn_first_call(LogSite site, const void* ret_addr, const char* what, const char* detail_fmt,
                     ...) __attribute__((format(printf, 4, 5)));

// fork (lifecycle/fork.cpp's table): the first-call log cache's lock.
POOLSHIM_FORK_HOOK void caller_atfork_prepare();
POOLSHIM_FORK_HOOK void caller_atfork_parent();
POOLSHIM_FORK_HOOK void caller_atfork_child();

}  // namespace poolshim::diag
