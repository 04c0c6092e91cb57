// poolshim info --pools [--json] [--pid PID]: every thread pool of a process, one row each, with
// the fields of poolshim.threadpool_info() (python/poolshim/_pools.py): threadpoolctl's
// user_api, internal_api, prefix, filepath, version, num_threads, and poolshim's merged, reason,
// pool, active_threads, budget. With --pid the modules are judged as `audit --pid` judges them
// (audit_scan.h); without it, the command's own process is described, which never loads the
// shim: the one row then says so. From outside a process the sizes its pools chose cannot be
// read: num_threads is the variable that bounds each pool when it is set there, else null.
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <vector>

#include "audit_scan.h"
#include "budget/budget.h"
#include "cli.h"
#include "elf/mapped_file.h"
#include "elf/reader.h"
#include "json_out.h"
#include "poolshim/version.h"
#include "proc_view.h"

namespace poolshim::cli {
namespace {

struct Pool {
  std::string user_api, internal_api, prefix, filepath, reason;
  Json version = nullptr, num_threads = nullptr, active_threads = nullptr, budget = nullptr;
  bool merged = false;
};

// The shim names its workers "poolshim" (shim/core/workers.cpp); -1 when the tasks are unreadable.
long worker_threads(long pid) {
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  long n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    FILE* f = fopen((dir + "/" + e->d_name + "/comm").c_str(), "re");
    if (f == nullptr) continue;
    char comm[32] = "";
    if (fgets(comm, sizeof comm, f) != nullptr && strcmp(comm, "poolshim\n") == 0) ++n;
    fclose(f);
  }
  closedir(d);
  return n;
}

std::string prefix_of(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  return base.substr(0, base.find('.'));
}

Json number_or_null(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 9)
    return nullptr;
  return std::stol(text);
}

// Does the shim's file define an OpenMP surface (GOMP_parallel)? It runs the regions natively
// unless POOLSHIM_OPENMP=forward (or another value) or POOLSHIM_DISABLE=openmp: only then do
// OpenMP rows read not merged, as in _pools.py.
bool shim_has_openmp(const std::string& path) {
  elf::MappedFile f;
  elf::Reader r;
  elf::Symbol s;
  return !path.empty() && f.open(path.c_str()) && r.open_file(f.data(), f.size()) &&
         r.find_dynsym("GOMP_parallel", &s) != 0 && s.defined();
}

struct RuntimeApi {
  const char* name_prefix;
  const char* user_api;
  const char* internal_api;
};
const RuntimeApi kRuntimeApis[] = {{"OpenMP", "openmp", "openmp"},
                                   {"OpenBLAS", "blas", "openblas"},
                                   {"Intel MKL", "blas", "mkl"},
                                   {"oneTBB", "tbb", "tbb"}};

std::vector<Pool> pools_of_pid(long pid, std::string* error) {
  Scanner scanner(nullptr);
  scanner.scan_pid(pid);
  const ProcessFacts& proc = scanner.process();
  std::vector<Pool> out;
  if (scanner.entries().empty()) {
    *error = "cannot read the modules of process " + std::to_string(pid);
    return out;
  }
  ProcView view;
  std::string disable, num_threads, openmp_mode, kmpc_mode;
  bool readable = false, openmp_set = false, kmpc_shim = false;
  if (view.open(pid)) {
    view.env("POOLSHIM_DISABLE", &disable, &readable);
    view.env("POOLSHIM_NUM_THREADS", &num_threads, &readable);
    openmp_set = view.env("POOLSHIM_OPENMP", &openmp_mode, &readable);
    kmpc_shim = view.env("POOLSHIM_KMPC", &kmpc_mode, &readable) && kmpc_mode == "shim";
  }
  const bool loaded = proc.shim_loaded;
  const long workers = loaded ? worker_threads(pid) : 0;
  const Json active = workers >= 0 ? Json(workers) : Json(nullptr);
  const Json size = number_or_null(num_threads);
  auto disabled = [&](const char* surface) {
    return disable == "all" ||
           ("," + disable + ",").find(std::string(",") + surface + ",") != std::string::npos;
  };

  Pool shim{"poolshim", "poolshim", "libpoolshim", proc.shim_path, ""};
  shim.version = POOLSHIM_VERSION_STRING;
  if (loaded) {
    shim.merged = true;
    shim.reason = "the one process-wide pool";
    shim.num_threads = size;
    shim.budget = size;
    shim.active_threads = active;
  } else {
    shim.reason = "libpoolshim is not loaded in process " + std::to_string(pid) +
                  ": every pool below runs on its own (start it with `poolshim run -- CMD`)";
    shim.active_threads = 0;
  }
  out.push_back(shim);

  const char* const surfaces[reach::kSurfaceCount] = {"executorch", "pthreadpool", "openmp"};
  std::vector<Pool> copies[reach::kSurfaceCount];
  for (const AuditEntry& e : scanner.entries()) {
    if (!e.readable || e.verdict.provider || !e.verdict.carries_surface()) continue;
    for (unsigned k = 0; k < reach::kSurfaceCount; ++k) {
      const reach::SurfaceVerdict& v = e.verdict.surface[k];
      // OpenMP copies inside modules are audit's and the log's to name: threadpoolctl, and so
      // the Python view, know OpenMP runtimes by their file only (the runtime rows below).
      if (v.verdict == reach::Verdict::absent || k == reach::kOpenmp) continue;
      if (k == reach::kPthreadpool && loaded && v.verdict == reach::Verdict::redirected)
        continue;  // aggregate
      Pool p{surfaces[k], surfaces[k], prefix_of(e.path), e.path, ""};
      p.merged = loaded && v.verdict == reach::Verdict::redirected && !disabled(surfaces[k]);
      if (p.merged) {
        p.reason = "its calls resolve to the shim: it runs on the one pool";
        p.num_threads = size;
        p.budget = size;
        p.active_threads = active;
      } else if (!loaded) {
        p.reason = "libpoolshim is not loaded: this copy runs its own pool";
      } else if (v.verdict == reach::Verdict::redirected) {
        p.reason = std::string("POOLSHIM_DISABLE=") + surfaces[k] +
                   ": its calls pass through to its own pool";
      } else {
        p.reason = std::string("unreachable by the preload: ") + reach::reason_text(v.reason);
      }
      copies[k].push_back(p);
    }
  }
  out.insert(out.end(), copies[0].begin(), copies[0].end());
  if (loaded) {
    Pool agg{"pthreadpool", "pthreadpool", "libpoolshim", proc.shim_path, ""};
    agg.merged = !disabled("pthreadpool");
    if (agg.merged) {
      agg.reason = "every pthreadpool handle (pthreadpool_create) is a view of the one pool";
      agg.num_threads = size;
      agg.budget = size;
      agg.active_threads = active;
    } else {
      agg.reason =
          "POOLSHIM_DISABLE=pthreadpool: handles pass through to libpthreadpool.so.0's own pools";
    }
    out.push_back(agg);
  }
  out.insert(out.end(), copies[1].begin(), copies[1].end());

  const bool shim_openmp = loaded && shim_has_openmp(proc.shim_path);
  // The native runtime is the default; a set value other than "shim" forwards (config/options).
  const bool openmp_native =
      shim_openmp && (!openmp_set || openmp_mode == "shim") && !disabled("openmp");
  // Under POOLSHIM_KMPC=shim, the first module whose imports keep the __kmpc calls on libomp (the
  // gate's rule, reach/kmpc_native.h). The process decides once, at its first __kmpc call, from
  // the modules loaded then; the view judges the modules loaded now.
  std::string kmpc_blocker;
  for (const AuditEntry& e : scanner.entries())
    if (kmpc_blocker.empty() && e.readable && !e.verdict.provider && !e.kmpc.blocks_native.empty())
      kmpc_blocker = e.path.substr(e.path.rfind('/') + 1) + " imports " + e.kmpc.blocks_native;
  const bool kmpc_native = openmp_native && kmpc_shim && kmpc_blocker.empty();
  for (const AuditEntry& e : scanner.entries()) {
    if (e.runtime == nullptr) continue;
    const RuntimeApi* api = nullptr;
    for (const RuntimeApi& a : kRuntimeApis)
      if (strncmp(e.runtime->name, a.name_prefix, strlen(a.name_prefix)) == 0) api = &a;
    if (api == nullptr) continue;
    Pool p{api->user_api, api->internal_api, prefix_of(e.path), e.path, ""};
    bool openmp = strcmp(api->user_api, "openmp") == 0;
    // LLVM's libomp and Intel's libiomp5 serve the __kmpc ABI, which the shim passes on to them
    // unless POOLSHIM_KMPC=shim and no loaded module imports an OpenMP function the shim does
    // not run natively: then their clients' regions run on the one pool.
    const bool llvm = openmp && strstr(e.runtime->name, "libgomp") == nullptr;
    p.merged = openmp && openmp_native && (!llvm || kmpc_native);
    if (llvm && kmpc_native) {
      p.reason = prefix_of(e.path) +
                 "'s clients run on the one pool: POOLSHIM_KMPC=shim, and no loaded module "
                 "imports an OpenMP function the shim does not run natively, so their __kmpc "
                 "calls run as teams of the shim's threads (the process decides at its first "
                 "such call, from the modules loaded then)";
    } else if (llvm && shim_openmp && kmpc_shim && openmp_native) {
      p.reason = prefix_of(e.path) + " keeps its own pool: POOLSHIM_KMPC=shim, but " +
                 kmpc_blocker +
                 ", which the shim does not run natively, so every __kmpc call goes to it (all "
                 "or nothing)";
    } else if (llvm && shim_openmp) {
      p.reason = prefix_of(e.path) +
                 " keeps its own pool (the shim passes LLVM OpenMP's __kmpc calls on to it" +
                 (!openmp_native ? std::string(", as its OpenMP surface forwards)")
                  : kmpc_blocker.empty()
                      ? std::string("; POOLSHIM_KMPC=shim would run them on the one pool: no "
                                    "loaded module imports an OpenMP function the shim does not "
                                    "run natively)")
                      : "; POOLSHIM_KMPC=shim would not run them on the one pool: " + kmpc_blocker +
                            ", which the shim does not run natively)");
    } else if (p.merged) {
      p.reason = "the shim's OpenMP surface runs its parallel regions on the one pool";
    } else if (openmp && shim_openmp) {
      p.reason = prefix_of(e.path) +
                 " keeps its own pool (the shim's OpenMP surface forwards to it; "
                 "POOLSHIM_OPENMP=forward is set)";
    } else {
      p.reason =
          openmp ? prefix_of(e.path) + " keeps its own pool (the shim exports no OpenMP surface)"
                 : std::string(e.runtime->name) +
                       " keeps its own pool (no legacy ABI the shim takes over)";
    }
    if (e.runtime->env_var != nullptr) {
      for (const ProcessFacts::RuntimeEnv& v : proc.env) {
        if (v.var != e.runtime->env_var) continue;
        if (!p.merged)
          p.reason += "; bounded by " + v.var + "=" + (v.set ? v.value : std::string("(unset)"));
        if (v.set) p.num_threads = number_or_null(v.value);
      }
    }
    out.push_back(p);
  }
  return out;
}

// The command's own process: it never loads the shim.
std::vector<Pool> pools_here() {
  Pool shim{"poolshim", "poolshim", "libpoolshim", "", ""};
  shim.version = POOLSHIM_VERSION_STRING;
  shim.reason =
      "libpoolshim is not loaded in this process (the command never loads it); its pool would "
      "get this budget. `poolshim info --pools --pid PID` describes a running process";
  shim.budget = budget::current().threads;
  shim.active_threads = 0;
  return {shim};
}

std::string cell(const Json& j) {
  if (j.is_null()) return "-";
  if (j.is_boolean()) return j.get<bool>() ? "yes" : "no";
  if (j.is_string()) return j.get<std::string>().empty() ? "-" : j.get<std::string>();
  return j.dump();
}

}  // namespace

int info_pools(long pid, bool json) {
  std::string error;
  std::vector<Pool> pools = pid != 0 ? pools_of_pid(pid, &error) : pools_here();
  if (pools.empty()) {
    fprintf(stderr, "poolshim info: %s\n", error.c_str());
    return kExitUsage;
  }
  Json all = Json::array();
  for (const Pool& p : pools) {
    all.push_back({{"user_api", p.user_api},
                   {"internal_api", p.internal_api},
                   {"prefix", p.prefix},
                   {"filepath", p.filepath.empty() ? Json(nullptr) : Json(p.filepath)},
                   {"version", p.version},
                   {"num_threads", p.num_threads},
                   {"merged", p.merged},
                   {"reason", p.reason},
                   {"pool", p.merged ? Json("poolshim")
                                     : (p.filepath.empty() ? Json(nullptr) : Json(p.filepath))},
                   {"active_threads", p.active_threads},
                   {"budget", p.budget}});
  }
  if (json) {
    print_json(all);
    return kExitOk;
  }
  // The same columns as python -m poolshim info --pools (_pools.format_table).
  const char* const keys[] = {"user_api",       "internal_api", "merged",  "num_threads",
                              "active_threads", "budget",       "filepath"};
  const char* const heads[] = {"api", "internal", "merged", "threads", "active", "budget", "file"};
  std::vector<std::vector<std::string>> rows{std::vector<std::string>(heads, heads + 7)};
  for (const Json& p : all) {
    std::vector<std::string> r;
    for (const char* k : keys) r.push_back(printable(cell(p[k])));
    rows.push_back(r);
  }
  size_t width[6] = {};
  for (const auto& r : rows)
    for (size_t i = 0; i < 6; ++i) width[i] = std::max(width[i], r[i].size());
  for (const auto& r : rows) {
    for (size_t i = 0; i < 6; ++i) printf("%-*s  ", static_cast<int>(width[i]), r[i].c_str());
    printf("%s\n", r[6].c_str());
  }
  printf("\n");
  for (size_t i = 0; i < all.size(); ++i)
    printf("%zu. %s %s: %s\n", i + 1, all[i]["internal_api"].get<std::string>().c_str(),
           printable(cell(all[i]["filepath"])).c_str(),
           printable(all[i]["reason"].get<std::string>()).c_str());
  return kExitOk;
}

}  // namespace poolshim::cli
