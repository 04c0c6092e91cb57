// poolshim info [--pools] [--json] [--pid PID]
// Without --pid: the thread budget the shim would use in this environment, every source it
// considered, the CPU topology, and the settings in force. It runs the shim's own code (config/,
// budget/) in this process, so what it prints is what a preloaded shim would decide here.
// With --pid: what a running process holds: whether libpoolshim is loaded, its POOLSHIM_*
// settings, and the other runtimes' pools (OpenMP, OpenBLAS, MKL, oneTBB) it has loaded.
// With --pools: every thread pool of that process, one row each (pools_cmd.cpp).
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "base/private_library.h"
#include "budget/budget.h"
#include "budget/group_ledger.h"
#include "topology.h"
#include "cli.h"
#include "config/options.h"
#include "report/runtimes.h"
#include "elf/mapped_file.h"
#include "elf/reader.h"
#include "json_out.h"
#include "poolshim/version.h"
#include "proc_view.h"

namespace poolshim::cli {
namespace {

const char kInfoHelp[] =
    "usage: poolshim info [--json]\n"
    "       poolshim info [--json] --pid PID\n"
    "       poolshim info --pools [--json] [--pid PID]\n"
    "\n"
    "Prints the thread budget libpoolshim.so would use in this environment and where it came\n"
    "from (POOLSHIM_NUM_THREADS, the affinity mask, the cgroup CPU quota), the CPU topology\n"
    "(packages, cores, logical processors, from libcpuinfo), the settings in force (POOLSHIM_*\n"
    "variables: raw value and default), and the library `poolshim run` would preload.\n"
    "With --pid: whether libpoolshim is loaded in process PID, its POOLSHIM_* settings, its\n"
    "thread count, and the other runtimes' pools it loaded (OpenMP, OpenBLAS, MKL, oneTBB: not\n"
    "merged) with the variable that bounds each.\n"
    "With --pools: every thread pool of process PID (without --pid: of this command, which never\n"
    "loads the shim, and says so), one row each with the fields of poolshim.threadpool_info():\n"
    "threadpoolctl's user_api, internal_api, prefix, filepath, version, num_threads, and merged,\n"
    "reason, pool, active_threads (the shim's workers alive now), budget.\n"
    "\n"
    "  --pools     the pools view\n"
    "  --json      one JSON document on stdout\n"
    "  --pid PID   describe the running process PID\n"
    "  -h, --help  this text\n"
    "\n"
    "exit status: 0; 2 on a usage error or when the process cannot be read.\n";

const char* level_name(config::LogLevel l) {
  switch (l) {
    case config::LogLevel::warn: return "warn";
    case config::LogLevel::info: return "info";
    case config::LogLevel::debug: return "debug";
    case config::LogLevel::off: break;
  }
  return "off";
}

std::string disabled_text(unsigned d) {
  if (d == 0) return "none";
  std::string out;
  for (auto [bit, name] : {std::pair{config::kSurfaceExecutorch, "executorch"},
                           std::pair{config::kSurfacePthreadpool, "pthreadpool"},
                           std::pair{config::kSurfaceOpenmp, "openmp"}})
    if (d & bit) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

std::string count_or(size_t n, const char* none) { return n > 0 ? std::to_string(n) : none; }

// The library behind POOLSHIM_DISABLE=pthreadpool (the shim opens it privately, by this soname,
// only then): where it is and whether it can be bound, as a process under the shim would see it.
struct PassthroughEngine {
  bool usable = false;
  std::string path;  // the real file, when found
  std::string error;
};

PassthroughEngine passthrough_engine() {
  PassthroughEngine e;
  // As the shim opens it: privately, refusing a symbol that resolves into ourselves.
  const char* const names[] = {"pthreadpool_create"};
  void* sym = nullptr;
  base::PrivateLibrary lib = base::open_private("libpthreadpool.so.0", names, 1, &sym);
  if (lib.handle == nullptr) {
    e.error = lib.error;
    return e;
  }
  Dl_info info;
  if (sym != nullptr && dladdr(sym, &info) != 0 && info.dli_fname != nullptr) {
    char real[PATH_MAX];
    e.path = realpath(info.dli_fname, real) != nullptr ? real : info.dli_fname;
    e.usable = true;
  } else {
    e.error = "libpthreadpool.so.0 lacks pthreadpool_create";
  }
  return e;  // the handle stays open: this command exits soon
}

int info_here(bool json) {
  const config::Options& opt = config::options();
  const budget::Budget& b = budget::current();
  const Topology& t = topology();
  const char* env = config::raw_value("POOLSHIM_NUM_THREADS");
  std::string tried;
  std::string lib = find_library(&tried);
  const PassthroughEngine engine = passthrough_engine();
  if (json) {
    Json j;
    j["poolshim_version"] = POOLSHIM_VERSION_STRING;
    j["budget"] = b.threads;
    j["budget_source"] = b.source;
    j["sources"] = {{"POOLSHIM_NUM_THREADS", env != nullptr ? Json(env) : Json(nullptr)},
                    {"POOLSHIM_NUM_THREADS_valid", env == nullptr || opt.num_threads != 0},
                    {"affinity_cpus", b.affinity_cpus},
                    {"cgroup_cpus", b.cgroup_cpus},
                    {"cgroup_detail", b.cgroup_detail},
                    {"online_cpus", b.online_cpus}};
    j["topology"] = {{"available", t.available},
                     {"packages", t.packages},
                     {"cores", t.cores},
                     {"logical", t.logical},
                     {"detail", t.detail}};
    Json settings = Json::object();
    for (size_t i = 0; i < config::kOptionCount; ++i) {
      const config::Option& o = config::option_table()[i];
      const char* raw = config::raw_value(o.name);
      settings[o.name] = {{"value", raw != nullptr ? Json(raw) : Json(nullptr)},
                          {"default", o.default_text}};
    }
    j["settings"] = settings;
    j["secure_execution"] = opt.secure;
    j["log_level"] = level_name(opt.log_level);
    j["log_file"] = opt.log_file != nullptr ? Json(opt.log_file) : Json(nullptr);
    j["disabled_surfaces"] = disabled_text(opt.disabled);
    j["library"] = lib.empty() ? Json(nullptr) : Json(lib);
    j["pool"] = {{"engine", "poolshim's own workers"},
                 {"max_workers", b.threads > 0 ? b.threads - 1 : 0},
                 {"started", "on the first parallel call"}};
    j["passthrough_engine"] = {{"soname", "libpthreadpool.so.0"},
                               {"usable", engine.usable},
                               {"path", engine.usable ? Json(engine.path) : Json(nullptr)},
                               {"error", engine.usable ? Json(nullptr) : Json(engine.error)}};
    print_json(j);
    return kExitOk;
  }
  printf("budget: %zu thread%s (%s)\n", b.threads, b.threads == 1 ? "" : "s", b.source);
  printf("sources considered:\n");
  printf("  environment:   POOLSHIM_NUM_THREADS=%s%s\n", env != nullptr ? env : "(unset)",
         env != nullptr && opt.num_threads == 0 ? " (invalid, ignored)" : "");
  printf("  affinity mask: %s CPUs\n", count_or(b.affinity_cpus, "(unreadable)").c_str());
  printf("  cgroup quota:  %s (%s)\n", count_or(b.cgroup_cpus, "no limit").c_str(),
         b.cgroup_detail[0] != '\0' ? b.cgroup_detail : "no detail");
  printf("  online CPUs:   %s (used only when the affinity mask is unreadable)\n",
         count_or(b.online_cpus, "(unknown)").c_str());
  if (t.available)
    printf("topology: %zu package%s, %zu core%s, %zu logical processor%s (%s)\n", t.packages,
           t.packages == 1 ? "" : "s", t.cores, t.cores == 1 ? "" : "s", t.logical,
           t.logical == 1 ? "" : "s", t.detail);
  else
    printf("topology: unavailable (%s)\n", t.detail);

  printf("settings%s:\n",
         opt.secure ? " (secure-execution mode: the environment is not read)" : "");
  for (size_t i = 0; i < config::kOptionCount; ++i) {
    const config::Option& o = config::option_table()[i];
    const char* raw = config::raw_value(o.name);
    printf("  %-22s %s\n", o.name, raw != nullptr ? raw : "(unset)");
    printf("  %-22s   default %s; %s\n", "", o.default_text, o.help);
  }
  printf("in force: log level %s, log to %s, disabled surfaces: %s\n", level_name(opt.log_level),
         opt.log_file != nullptr ? opt.log_file : "stderr", disabled_text(opt.disabled).c_str());
  if (opt.group != nullptr) {
    // Read-only look at the ledger: `poolshim info` itself never joins the group.
    char path[160], why[320];
    long busy = 0;
    size_t members = 0, creator = 0, n = 0;
    budget::group::Share shares[budget::group::kMaxMembers];
    if (!budget::group::ledger_path(opt.group, path, sizeof path))
      printf("group: %s (name too long for a ledger path)\n", opt.group);
    else if (budget::group::peek(path, &busy, &members, &creator, why, sizeof why, shares,
                                 budget::group::kMaxMembers, &n)) {
      printf(
          "group: %s, ledger %s: %zu live member%s, %ld thread%s busy; each member bounds the "
          "group by its own budget (creator's: %zu)\n",
          opt.group, path, members, members == 1 ? "" : "s", busy, busy == 1 ? "" : "s", creator);
      for (size_t i = 0; i < n; ++i)
        printf("  member pid %d: %ld busy\n", shares[i].pid, shares[i].busy);
    } else
      printf("group: %s (%s)\n", opt.group, why);
  } else {
    printf("group: none (the budget is this process's own; POOLSHIM_GROUP shares it)\n");
  }
  printf(
      "pool: poolshim's own workers, the caller plus up to %zu worker thread%s, started on the "
      "first parallel call (a process that cannot start one says so and runs serially)\n",
      b.threads > 0 ? b.threads - 1 : 0, b.threads == 2 ? "" : "s");
  if (engine.usable)
    printf("passthrough engine (POOLSHIM_DISABLE=pthreadpool): %s (usable)\n", engine.path.c_str());
  else
    printf(
        "passthrough engine (POOLSHIM_DISABLE=pthreadpool): libpthreadpool.so.0 unusable (%s); "
        "such calls would run serially\n",
        engine.error.c_str());
  printf("library: %s\n", lib.empty() ? "not found next to this command" : lib.c_str());
  printf("version: %s\n", POOLSHIM_VERSION_STRING);
  return kExitOk;
}

struct LoadedRuntime {
  std::string path;
  const report::Runtime* runtime;
};

int info_pid(long pid, bool json) {
  ProcView proc;
  std::vector<Mapping> maps;
  std::string error;
  if (!proc.open(pid)) {
    fprintf(stderr, "poolshim info: no process %ld to read: %s\n", pid, strerror(errno));
    return kExitUsage;
  }
  if (!proc.read_maps(&maps, &error)) {
    fprintf(stderr, "poolshim info: %s\n", error.c_str());
    return kExitUsage;
  }
  std::string shim;
  std::vector<LoadedRuntime> runtimes;
  for (const Mapping& m : maps) {
    if (const report::Runtime* rt = report::runtime_of(m.path.c_str()))
      runtimes.push_back({m.path, rt});
    if (!shim.empty()) continue;
    // libpoolshim is the module that exports the poolshim C API (whatever its file name).
    std::string source = proc.readable_source(m);
    elf::MappedFile f;
    if (source.empty() || !f.open(source.c_str())) continue;
    elf::Reader r;
    if (!r.open_file(f.data(), f.size())) continue;
    elf::Symbol s;
    if (r.find_dynsym("poolshim_get_info", &s) != 0 && s.defined()) shim = m.path;
  }
  bool alive = proc.alive() && !maps.empty();
  struct EnvRow {
    std::string name, value;
    bool set, readable;
  };
  std::vector<EnvRow> env;
  std::vector<std::string> names;
  for (size_t i = 0; i < config::kOptionCount; ++i) names.push_back(config::option_table()[i].name);
  for (const char* v : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "LD_PRELOAD"})
    names.push_back(v);
  for (const std::string& n : names) {
    EnvRow row{n, "", false, false};
    row.set = proc.env(n.c_str(), &row.value, &row.readable);
    env.push_back(row);
  }
  size_t threads = proc.threads();
  // OpenMP team threads started beyond the budget (the native OpenMP runtime; core/gang.h names
  // them).
  long team_threads = shim.empty() ? 0 : proc.threads_named("poolshim-team");
  if (json) {
    Json j;
    j["poolshim_version"] = POOLSHIM_VERSION_STRING;
    j["pid"] = pid;
    j["exe"] = proc.exe();
    j["alive"] = alive;
    j["shim_loaded"] = !shim.empty();
    j["shim_path"] = shim;
    j["threads"] = threads;
    j["team_threads"] = team_threads >= 0 ? Json(team_threads) : Json(nullptr);
    Json e = Json::object();
    for (const EnvRow& r : env)
      e[r.name] = !r.readable ? Json("unreadable") : r.set ? Json(r.value) : Json(nullptr);
    j["environment"] = e;
    Json rts = Json::array();
    for (const LoadedRuntime& r : runtimes)
      rts.push_back({{"path", r.path},
                     {"name", r.runtime->name},
                     {"env_var", r.runtime->env_var},
                     {"merged", false}});
    j["other_runtimes"] = rts;
    print_json(j);
  } else {
    printf("process %ld: %s\n", pid, printable(proc.exe()).c_str());
    if (shim.empty())
      printf(
          "libpoolshim: NOT loaded (its pools are its own; run it with `poolshim run` to merge "
          "them)\n");
    else
      printf("libpoolshim: loaded (%s)\n", printable(shim).c_str());
    printf("threads: %zu\n", threads);
    if (team_threads > 0)
      printf(
          "team threads beyond the budget: %ld (OpenMP teams larger than the idle workers got "
          "their threads, as libgomp would create them; kept for later teams)\n",
          team_threads);
    printf("environment:\n");
    for (const EnvRow& r : env)
      printf("  %-22s %s\n", r.name.c_str(),
             !r.readable ? "(not readable)"
             : r.set     ? printable(r.value).c_str()
                         : "(unset)");
    if (runtimes.empty()) {
      printf("other runtimes' pools: none loaded\n");
    } else {
      printf("other runtimes' pools (not merged; each bounded by its own variable):\n");
      for (const LoadedRuntime& r : runtimes)
        printf("  %s: %s, bounded by %s\n", printable(r.path).c_str(), r.runtime->name,
               r.runtime->env_var);
    }
  }
  if (!alive) {
    fprintf(stderr,
            "poolshim info: process %ld exited while it was read; the answer is incomplete\n", pid);
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

int info_main(int argc, char** argv) {
  bool json = false, pools = false;
  long pid = 0;
  static const option kOptions[] = {{"json", no_argument, nullptr, 'j'},
                                    {"pools", no_argument, nullptr, 'P'},
                                    {"pid", required_argument, nullptr, 'p'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = next_option(argc, argv, ":h", kOptions)) != -1) {
    switch (c) {
      case 'j': json = true; break;
      case 'P': pools = true; break;
      case 'p':
        if (!parse_pid(optarg, &pid)) {
          fprintf(stderr,
                  "poolshim info: --pid wants a process id, not '%s'\n(see poolshim info --help)\n",
                  optarg);
          return kExitUsage;
        }
        break;
      case 'h': fputs(kInfoHelp, stdout); return kExitOk;
      default:
        fprintf(stderr,
                "poolshim info: unknown option or missing value: %s\n(see poolshim info --help)\n",
                argv[optind - 1]);
        return kExitUsage;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "poolshim info: unexpected argument %s\n(see poolshim info --help)\n",
            argv[optind]);
    return kExitUsage;
  }
  if (pools) return info_pools(pid, json);
  return pid != 0 ? info_pid(pid, json) : info_here(json);
}

}  // namespace poolshim::cli
