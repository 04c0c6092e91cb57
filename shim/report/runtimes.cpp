// The other runtimes' table and their load-time report lines (see runtimes.h).
#include "report/runtimes.h"

#include <stdlib.h>
#include <string.h>

#include <atomic>

#include "config/options.h"
#include "diag/log.h"
#include "reach/query.h"

namespace poolshim::report {
namespace {

// Order matters only for prefixes of one another (none today). libiomp5 / libomp are LLVM's and
// Intel's OpenMP; MKL's threading layers load one of them too.
const Runtime kRuntimes[] = {
    {"libgomp", "OpenMP (GNU libgomp)", "OMP_NUM_THREADS"},
    {"libiomp5", "OpenMP (Intel libiomp5)", "OMP_NUM_THREADS"},
    {"libomp", "OpenMP (LLVM libomp)", "OMP_NUM_THREADS"},
    {"libopenblas", "OpenBLAS", "OPENBLAS_NUM_THREADS"},
    {"libscipy_openblas", "OpenBLAS (numpy/scipy wheels)", "OPENBLAS_NUM_THREADS"},
    {"libmkl_", "Intel MKL", "MKL_NUM_THREADS"},
    {"libtbb", "oneTBB", "TBB's global_control (no variable; follows the affinity mask)"},
    {nullptr, nullptr, nullptr},
};

// One flag per judged module (reach::judged_module's index): each is reported at most once.
std::atomic<bool> g_runtime_reported[reach::kMaxJudged];

}  // namespace

const Runtime* runtime_table() { return kRuntimes; }

const Runtime* runtime_of(const char* path) {
  if (path == nullptr) return nullptr;
  const char* base = strrchr(path, '/');
  base = base != nullptr ? base + 1 : path;
  for (const Runtime* r = kRuntimes; r->prefix != nullptr; ++r) {
    size_t n = strlen(r->prefix);
    if (strncmp(base, r->prefix, n) != 0) continue;
    // "libgomp.so.1", "libgomp-a34b3233.so.1"; not "libgompx.so".
    char next = base[n];
    if (r->prefix[n - 1] == '_' || next == '.' || next == '-' || (next >= '0' && next <= '9'))
      return r;
  }
  return nullptr;
}

bool is_libgomp(const Runtime* rt) { return rt != nullptr && strcmp(rt->prefix, "libgomp") == 0; }

namespace {

bool is_llvm_openmp(const Runtime* rt) {
  return rt != nullptr &&
         (strcmp(rt->prefix, "libomp") == 0 || strcmp(rt->prefix, "libiomp5") == 0);
}

// Where the __kmpc calls of a libomp / libiomp5 copy's clients go, as far as the load can tell:
// the shim exports them all (abi/openmp/kmpc); POOLSHIM_KMPC decides, and under =shim the
// process's first call does (kmpc/gate.cpp), whose own line then says which.
const char* kmpc_route(const config::Options& o) {
  if ((o.disabled & config::kSurfaceOpenmp) != 0)
    return "the shim forwards its clients' __kmpc calls to it (POOLSHIM_DISABLE=openmp), so it "
           "keeps its own thread pool beside the shared one (not merged)";
  if (!o.kmpc_native)
    return "the shim forwards its clients' __kmpc calls to it (POOLSHIM_KMPC=forward, the "
           "default), so it keeps its own thread pool beside the shared one (not merged)";
  if (!o.openmp_native)
    return "the shim forwards its clients' __kmpc calls to it (POOLSHIM_KMPC=shim, but "
           "POOLSHIM_OPENMP=forward), so it keeps its own thread pool beside the shared one "
           "(not merged)";
  return "its clients' __kmpc calls run on the shared pool if every module's imports run "
         "natively (POOLSHIM_KMPC=shim; the first call decides, and the line \"openmp: LLVM "
         "OpenMP's __kmpc calls ...\" says which); code calling this copy directly keeps its "
         "own pool";
}

}  // namespace

bool is_renamed_libgomp(const char* path) {
  const char* base = path != nullptr ? strrchr(path, '/') : nullptr;
  base = base != nullptr ? base + 1 : path;
  return base != nullptr && strncmp(base, "libgomp.so", 10) != 0;
}

void report_runtimes_once() {
  if (!diag::log_enabled(diag::LogLevel::info)) return;
  size_t n = reach::judged_count();
  reach::JudgedModule rec;
  for (size_t i = 0; i < n && i < reach::kMaxJudged; ++i) {
    if (!reach::judged_module(i, &rec) || rec.path == nullptr) continue;
    const Runtime* rt = runtime_of(rec.path);
    if (rt == nullptr || g_runtime_reported[i].exchange(true, std::memory_order_acq_rel)) continue;
    // The variable is read here only to show it; the shim itself never acts on it.
    const char* value =
        strchr(rt->env_var, ' ') == nullptr ? config::raw_value(rt->env_var) : nullptr;
    const config::Options& o = config::options();
    if (is_libgomp(rt) && (o.disabled & config::kSurfaceOpenmp) == 0) {
      // The shim exports libgomp's host ABI: the calls of this copy's clients reach the shim (a
      // renamed copy's too: the dynamic linker matches versioned references by version name, not
      // by file). Only what is bound to the copy itself (listed "openmp unreachable") or calls it
      // by handle uses its pool directly.
      const char* renamed =
          is_renamed_libgomp(rec.path)
              ? "; a renamed copy: its clients' versioned GOMP_*/omp_* references "
                "bind to the shim all the same"
              : "";
      if (o.openmp_native)
        diag::log(diag::LogLevel::info,
                  "module %s: %s: the regions its clients start through the shim run on the "
                  "shared pool (the native runtime); code calling this copy directly keeps its "
                  "own pool%s; bounded by %s (%s%s)",
                  rec.path, rt->name, renamed, rt->env_var,
                  value != nullptr ? "=" : "unset: one thread per CPU",
                  value != nullptr ? value : "");
      else
        diag::log(diag::LogLevel::info,
                  "module %s: %s: the shim forwards its clients' OpenMP calls to libgomp, which "
                  "keeps its own thread pool beside the shared one (not merged; "
                  "POOLSHIM_OPENMP=forward is set)%s; bounded by %s (%s%s)",
                  rec.path, rt->name, renamed, rt->env_var,
                  value != nullptr ? "=" : "unset: one thread per CPU",
                  value != nullptr ? value : "");
    } else if (is_llvm_openmp(rt)) {
      diag::log(diag::LogLevel::info, "module %s: %s: %s; bounded by %s (%s%s)", rec.path, rt->name,
                kmpc_route(o), rt->env_var, value != nullptr ? "=" : "unset: one thread per CPU",
                value != nullptr ? value : "");
    } else if (strchr(rt->env_var, ' ') != nullptr)
      diag::log(diag::LogLevel::info,
                "module %s: %s keeps its own thread pool beside the shared one (not merged); "
                "bounded by %s",
                rec.path, rt->name, rt->env_var);
    else
      diag::log(diag::LogLevel::info,
                "module %s: %s keeps its own thread pool beside the shared one (not merged); "
                "bounded by %s (%s%s)",
                rec.path, rt->name, rt->env_var,
                value != nullptr ? "=" : "unset: one thread per CPU",
                value != nullptr ? value : "");
  }
}

}  // namespace poolshim::report
