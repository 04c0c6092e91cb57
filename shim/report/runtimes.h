// Other runtimes' thread pools: pools that share the CPU with the one pool but that the shim does
// not merge (they have no legacy ABI it takes over). They are named, never silently missed: the
// load-time report (report.cpp, at info), `poolshim info --pid` / `audit --pid`, and
// docs/design.md. Each is bounded by its own environment variable, which `poolshim run` and
// `python -m poolshim run` set to the budget when unset.
#pragma once
#include <cstddef>

namespace poolshim::report {

struct Runtime {
  const char* prefix;   // file-name prefix of the module ("libgomp", "libopenblas", ...)
  const char* name;     // what it is, for people ("OpenMP (GNU libgomp)")
  const char* env_var;  // the variable that bounds its threads
};

// The table, terminated by an entry with prefix == nullptr.
const Runtime* runtime_table();

// The runtime a module path belongs to, by its file name ("/x/libgomp-a34b3233.so.1" is
// libgomp: wheels rename bundled copies with a hash suffix), or nullptr.
const Runtime* runtime_of(const char* path);

// A libgomp whose file name is not libgomp.so* (a wheel's libgomp-a34b3233.so.1).
bool is_renamed_libgomp(const char* path);

// Logs, at info, each loaded module of another runtime not reported yet (once per module per
// process), with the variable that bounds it and its value here. Called from
// report_modules_once() after the modules were recorded; never inside dl_iterate_phdr.
void report_runtimes_once();

}  // namespace poolshim::report
