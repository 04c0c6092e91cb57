// Where the OpenMP entry points go: by default (POOLSHIM_OPENMP=shim, no POOLSHIM_DISABLE=openmp)
// to the native runtime for the rows it implements (runtime_table.cpp), to libgomp for the
// others; with POOLSHIM_OPENMP=forward (or an invalid value) or POOLSHIM_DISABLE=openmp, every
// row to the real libgomp, so that the process behaves exactly as without the shim.
//
// The native runtime is the default (docs/openmp.md, "Decision", says why). The shim owns every
// GOMP_*/omp_* name either way, so a row's target is chosen here, with no other interposition.
//
// How the real function is found, once per row (entry.h: the trampolines cache it):
//   1-2. runtime::real_function() (runtime/libgomp.h): the libgomp the program links, else the
//        one a dlopen()ed module brought into its local scope, else Debian's, opened privately.
//   3. serial.cpp: the serial program's answer where OpenMP defines one.
//   4. A stub that warns once and returns 0: never a crash, but no OpenMP either.
#include <dlfcn.h>

#include "abi/openmp/entry.h"
#include "abi/openmp/runtime/libgomp.h"
#include "config/options.h"
#include "diag/log.h"
#include "report/report.h"

namespace poolshim::abi::openmp {
namespace {

extern "C" long psomp_missing() { return 0; }

void say_where(const Entry& e, void* target) {
  if (!diag::log_enabled(diag::LogLevel::info)) return;
  Dl_info info;
  const char* where = dladdr(target, &info) != 0 && info.dli_fname ? info.dli_fname : "?";
  diag::log_once(diag::LogSite::openmp_forwarding, diag::LogLevel::info,
                 "openmp: OpenMP calls go to %s (first: %s@%s)", where, e.name, e.version);
}

}  // namespace

// One Entry per row, C names so that the trampolines' assembly can address them.
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) \
  extern "C" Entry psomp_e_##name##_##tag;              \
  Entry psomp_e_##name##_##tag = {{nullptr}, #name, version};
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY

Entry* const kEntries[] = {
#define POOLSHIM_OMP_ENTRY(name, tag, version, binding) &psomp_e_##name##_##tag,
#include "symbols/openmp.def"
#undef POOLSHIM_OMP_ENTRY
};
const size_t kEntryCount = sizeof kEntries / sizeof kEntries[0];

}  // namespace poolshim::abi::openmp

extern "C" void* poolshim_openmp_resolve(poolshim::abi::openmp::Entry* entry) {
  using namespace poolshim::abi::openmp;
  using poolshim::diag::LogSite;
  void* target = entry->target.load(std::memory_order_acquire);
  if (target != nullptr) return target;
  // The load-time report (at info): which modules carry a copy of libgomp's ABI that the preload
  // cannot reach. Once per row's first call, so an OpenMP-only process is reported too.
  poolshim::report::report_modules_once();
  const poolshim::config::Options& o = poolshim::config::options();
  if (o.openmp_native && (o.disabled & poolshim::config::kSurfaceOpenmp) == 0 &&
      (target = runtime_function(entry->name, entry->version)) != nullptr) {
    poolshim::diag::log_once(LogSite::openmp_native, poolshim::diag::LogLevel::info,
                             "openmp: regions run on the shim's workers (the native runtime; "
                             "POOLSHIM_OPENMP=forward gives them to libgomp) (first: %s)",
                             entry->name);
    entry->target.store(target, std::memory_order_release);
    return target;
  }
  target = runtime::real_function(entry->name, entry->version);
  if (target != nullptr) {
    say_where(*entry, target);
  } else if ((target = serial_fallback(entry->name)) != nullptr) {
    poolshim::diag::log_once(LogSite::openmp_serial, poolshim::diag::LogLevel::info,
                             "openmp: no libgomp in the process or as %s; OpenMP runs serially "
                             "(first: %s)",
                             runtime::kLibgomp, entry->name);
  } else {
    poolshim::diag::warn_once(LogSite::openmp_missing,
                              "openmp: no libgomp for %s@%s and no serial meaning: it returns 0",
                              entry->name, entry->version);
    target = reinterpret_cast<void*>(&psomp_missing);
  }
  entry->target.store(target, std::memory_order_release);
  return target;
}
