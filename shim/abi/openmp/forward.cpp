// Where the OpenMP entry points go: by default (POOLSHIM_OPENMP=shim, no POOLSHIM_DISABLE=openmp)
// to the native runtime for the rows it implements (runtime_table.cpp), to libgomp for the
// others; with POOLSHIM_OPENMP=forward (or an invalid value) or POOLSHIM_DISABLE=openmp, every
// row to the real libgomp, so that the process behaves exactly as without the shim.
//
// The native runtime is the default (docs/openmp.md, "Decision", says why). The shim owns every
// GOMP_*/omp_* name either way, so a row's target is chosen here, with no other interposition.
//
// LLVM libomp's rows (symbols/kmpc.def: __kmpc_*, omp_*@VERSION, GOMP_*@VERSION) go to the
// libomp the caller was linked against (libomp.h), unless POOLSHIM_KMPC=shim and the process
// qualifies (kmpc/gate.cpp): then to the native __kmpc runtime (kmpc/) and the runtime's omp_*
// and GOMP_* functions.
//
// How the real function is found, once per row (entry.h: the trampolines cache it):
//   1-2. runtime::real_function() (runtime/libgomp.h): the libgomp the program links, else the
//        one a dlopen()ed module brought into its local scope, else Debian's, opened privately.
//   3. serial.cpp: the serial program's answer where OpenMP defines one.
//   4. A stub that warns once and returns 0: never a crash, but no OpenMP either.
#include <dlfcn.h>

#include "abi/openmp/entry.h"
#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/libomp.h"
#include "abi/openmp/runtime/libgomp.h"
#include "base/assert.h"
#include "config/options.h"
#include "diag/log.h"
#include "reach/kmpc_native.h"
#include "report/report.h"
#include "symbols/openmp_rows.h"

namespace poolshim::abi::openmp {
namespace {

extern "C" long psomp_missing() { return 0; }

namespace rows = symbols::openmp_rows;

// The file of the module whose code holds target, for the log ("?" when none does).
const char* module_of(void* target, Dl_info* info) {
  return dladdr(target, info) != 0 && info->dli_fname ? info->dli_fname : "?";
}

void say_where(size_t row, void* target) {
  if (!diag::log_enabled(diag::LogLevel::info)) return;
  Dl_info info;
  diag::log_once(diag::LogSite::openmp_forwarding, diag::LogLevel::info,
                 "openmp: OpenMP calls go to %s (first: %s@%s)", module_of(target, &info),
                 rows::name(row), rows::version(row));
}

// A row of libomp's (kmpc.def: __kmpc_*, omp_*@VERSION, GOMP_*@VERSION). Where the process runs
// __kmpc natively (kmpc/gate.cpp), the runtime's function when it has one; otherwise the real
// libomp, never serial (the caller was linked against a runtime, so one is loaded; if none can be
// found the row returns 0 and says so once).
void* resolve_libomp_row(size_t row) {
  using diag::LogLevel;
  using diag::LogSite;
  const char* name = rows::name(row);
  const bool kmpc_name = name[0] == '_';
  const bool native_process = kmpc::native_in_process();
  if (native_process) {
    // __kmpc_*: the native __kmpc runtime's; omp_* and GOMP_*: the runtime's of the same name,
    // where reach/kmpc_native.h allows it.
    void* native = kmpc_name                         ? kmpc::native_function(name)
                   : reach::openmp_name_native(name) ? runtime_function(row)
                                                     : nullptr;
    if (native != nullptr) return native;
    // libomp calling its own exported entry points (omp_init_lock calls __kmpc_init_lock through
    // its PLT) lands here, with libomp's own thread id: right to pass on. A module loaded after
    // the decision that calls it inside a native region would not be (docs/openmp.md).
    if (kmpc_name)
      diag::log_once(LogSite::openmp_kmpc_late, LogLevel::info,
                     "openmp: %s does not run natively: it goes to libomp (first such call: "
                     "libomp's own, or a module's loaded after the decision)",
                     name);
  }
  void* target = libomp_function(name);
  if (target == nullptr) {
    diag::warn_once(LogSite::openmp_kmpc_missing,
                    "openmp: no LLVM OpenMP runtime loaded for %s@%s: it returns 0", name,
                    rows::version(row));
    return reinterpret_cast<void*>(&psomp_missing);
  }
  if (!native_process && diag::log_enabled(LogLevel::info)) {
    Dl_info info;
    diag::log_once(LogSite::openmp_kmpc, LogLevel::info,
                   "openmp: LLVM OpenMP calls (__kmpc_*) go to %s, whose threads are its own "
                   "(not merged) (first: %s)",
                   module_of(target, &info), name);
  }
  return target;
}

}  // namespace

}  // namespace poolshim::abi::openmp

extern "C" void* poolshim_openmp_resolve(std::atomic<void*>* slot) {
  using namespace poolshim::abi::openmp;
  using poolshim::diag::LogSite;
  namespace rows = poolshim::symbols::openmp_rows;
  void* target = slot->load(std::memory_order_acquire);
  if (target != nullptr) return target;
  const size_t row = row_of_target(slot);
  POOLSHIM_ASSERT(row < rows::kCount);  // the trampolines pass their own row's word
  const char* name = rows::name(row);
  const char* version = rows::version(row);
  // The load-time report (at info): which modules carry a copy of libgomp's ABI that the preload
  // cannot reach. Once per row's first call, so an OpenMP-only process is reported too.
  poolshim::report::report_modules_once();
  if (row >= rows::kFirstLibompRow) {
    target = resolve_libomp_row(row);
    slot->store(target, std::memory_order_release);
    return target;
  }
  const poolshim::config::Options& o = poolshim::config::options();
  if (o.openmp_native && (o.disabled & poolshim::config::kSurfaceOpenmp) == 0 &&
      (target = runtime_function(row)) != nullptr) {
    poolshim::diag::log_once(LogSite::openmp_native, poolshim::diag::LogLevel::info,
                             "openmp: regions run on the shim's workers (the native runtime; "
                             "POOLSHIM_OPENMP=forward gives them to libgomp) (first: %s)",
                             name);
    slot->store(target, std::memory_order_release);
    return target;
  }
  target = runtime::real_function(name, version);
  if (target != nullptr) {
    say_where(row, target);
  } else if ((target = serial_fallback(name)) != nullptr) {
    poolshim::diag::log_once(LogSite::openmp_serial, poolshim::diag::LogLevel::info,
                             "openmp: no libgomp in the process or as %s; OpenMP runs serially "
                             "(first: %s)",
                             runtime::kLibgomp, name);
  } else {
    poolshim::diag::warn_once(LogSite::openmp_missing,
                              "openmp: no libgomp for %s@%s and no serial meaning: it returns 0",
                              name, version);
    target = reinterpret_cast<void*>(&psomp_missing);
  }
  slot->store(target, std::memory_order_release);
  return target;
}
