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
