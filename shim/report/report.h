// The load-time report: one log line per loaded module that carries a thread-pool surface,
// saying what the preload could do for it.
//
//   poolshim: module /x/_portable_lib.so: executorch redirected; pthreadpool unreachable (hidden
//   copy)
//
// Nothing happens at load time: the ABI layer calls report_modules_once() on its first entry
// into the shim, and again when a call comes from a module it has not seen before.
#pragma once

namespace poolshim::report {

// Logs, at info level, every loaded module with a pool surface that has not been reported yet
// (each module once per process). Returns at once, without reading any module, when the log
// level is below info, and after one step of dl_iterate_phdr when no module was loaded since the
// last report: cheap enough to call on every entry into the shim. Thread-safe; never call it
// from inside a dl_iterate_phdr callback.
void report_modules_once();

}  // namespace poolshim::report
