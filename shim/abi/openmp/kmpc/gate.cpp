// Whether this process's __kmpc calls run natively (kmpc.h: native_in_process): all of them or
// none, decided once.
//
// Why all or none: libomp's entry points take a thread id that indexes libomp's own thread
// table. A region run natively whose body called a __kmpc function the runtime lacks would hand
// libomp a thread and a team it never made. So the process runs natively only if every __kmpc_*
// function that a loaded module imports is native, every GOMP_* function it imports runs
// natively, and every omp_* function either runs natively or reads no team, so that libomp serves
// it for any thread (reach/kmpc_native.h: the names, which the command reads too). The modules
// are those loaded at the decision, on the first call of any of libomp's rows (their
// dynamic symbol tables, read in place by reach/); one loaded later that calls a __kmpc function
// outside the set gets libomp's, with a warning (forward.cpp), and must not call it inside a
// region that runs natively (docs/openmp.md says so).
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <atomic>

#include "abi/openmp/kmpc/kmpc.h"
#include "config/options.h"
#include "diag/log.h"
#include "reach/kmpc_native.h"
#include "reach/query.h"

namespace poolshim::abi::openmp::kmpc {
namespace {

enum Mode : int { kUndecided = 0, kNative = 1, kForward = 2 };
std::atomic<int> g_mode{kUndecided};

int decide() {
  const config::Options& o = config::options();
  char reason[320] = "";
  if (!o.kmpc_native) {
    snprintf(reason, sizeof reason, "POOLSHIM_KMPC=forward, the default");
  } else if (!o.openmp_native || (o.disabled & config::kSurfaceOpenmp) != 0) {
    snprintf(reason, sizeof reason, "the OpenMP surface forwards");
  } else {
    Dl_info mine;
    uintptr_t ours = 0;
    if (dladdr(reinterpret_cast<void*>(&decide), &mine) != 0)
      ours = reinterpret_cast<uintptr_t>(mine.dli_fbase);
    char found[280];
    if (reach::find_unwanted_import(reach::kmpc_import_blocks, ours, found, sizeof found))
      snprintf(reason, sizeof reason, "%s, which does not run natively", found);
  }
  const int mode = reason[0] == '\0' ? kNative : kForward;
  int expected = kUndecided;
  if (!g_mode.compare_exchange_strong(expected, mode, std::memory_order_acq_rel)) return expected;
  if (mode == kNative)
    diag::log_once(diag::LogSite::openmp_kmpc_mode, diag::LogLevel::info,
                   "openmp: LLVM OpenMP's __kmpc calls run natively, as teams of the shim's "
                   "threads (POOLSHIM_KMPC=shim)");
  else
    diag::log_once(diag::LogSite::openmp_kmpc_mode, diag::LogLevel::info,
                   "openmp: LLVM OpenMP's __kmpc calls go to libomp: %s", reason);
  return mode;
}

}  // namespace

bool native_in_process() {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == kUndecided) mode = decide();
  return mode == kNative;
}

}  // namespace poolshim::abi::openmp::kmpc
