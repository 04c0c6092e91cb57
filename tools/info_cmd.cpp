// poolshim info: the thread budget the shim would use in this environment, every source it
// considered, the CPU topology, and the settings in force. It runs the shim's own code (budget/,
// diag/) in this process, so what it prints is what a preloaded shim would decide here.
#include <stdio.h>
#include <string.h>

#include <string>

#include "budget/budget.h"
#include "budget/group_ledger.h"
#include "budget/topology.h"
#include "cli.h"
#include "diag/options.h"

namespace poolshim::cli {
namespace {

const char kInfoHelp[] =
    "usage: poolshim info\n"
    "\n"
    "Prints the thread budget libpoolshim.so would use in this environment and where it came\n"
    "from (POOLSHIM_NUM_THREADS, the affinity mask, the cgroup CPU quota), the CPU topology\n"
    "(packages, cores, logical processors, from libcpuinfo), the settings in force (POOLSHIM_*\n"
    "variables: raw value and default), and the library `poolshim run` would preload.\n"
    "\n"
    "exit status: 0; 2 on a usage error.\n";

const char* level_name(diag::LogLevel l) {
  switch (l) {
    case diag::LogLevel::warn: return "warn";
    case diag::LogLevel::info: return "info";
    case diag::LogLevel::debug: return "debug";
    case diag::LogLevel::off: break;
  }
  return "off";
}

std::string count_or(size_t n, const char* none) { return n > 0 ? std::to_string(n) : none; }

}  // namespace

int info_main(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      fputs(kInfoHelp, stdout);
      return kExitOk;
    }
    fprintf(stderr, "poolshim info: unexpected argument %s\n(see poolshim info --help)\n", argv[i]);
    return kExitUsage;
  }
  const diag::Options& opt = diag::options();
  const budget::Budget& b = budget::current();
  printf("budget: %zu thread%s (%s)\n", b.threads, b.threads == 1 ? "" : "s", b.source);
  printf("sources considered:\n");
  const char* env = diag::option_raw("POOLSHIM_NUM_THREADS");
  printf("  environment:   POOLSHIM_NUM_THREADS=%s%s\n", env != nullptr ? env : "(unset)",
         env != nullptr && opt.num_threads == 0 ? " (invalid, ignored)" : "");
  printf("  affinity mask: %s CPUs\n", count_or(b.affinity_cpus, "(unreadable)").c_str());
  printf("  cgroup quota:  %s (%s)\n", count_or(b.cgroup_cpus, "no limit").c_str(),
         b.cgroup_detail[0] != '\0' ? b.cgroup_detail : "no detail");
  printf("  online CPUs:   %s (not used for the budget)\n", count_or(b.online_cpus, "(unknown)").c_str());

  const budget::Topology& t = budget::topology();
  if (t.available)
    printf("topology: %zu package%s, %zu core%s, %zu logical processor%s (%s)\n", t.packages,
           t.packages == 1 ? "" : "s", t.cores, t.cores == 1 ? "" : "s", t.logical, t.logical == 1 ? "" : "s",
           t.detail);
  else
    printf("topology: unavailable (%s)\n", t.detail);

  printf("settings%s:\n", opt.secure ? " (secure-execution mode: the environment is not read)" : "");
  for (const diag::OptionInfo* o = diag::option_table(); o->name != nullptr; ++o) {
    const char* raw = diag::option_raw(o->name);
    printf("  %-22s %s\n", o->name, raw != nullptr ? raw : "(unset)");
    printf("  %-22s   default %s; %s\n", "", o->default_text, o->help);
  }
  printf("in force: log level %s, log to %s, disabled surfaces: %s\n", level_name(opt.log_level),
         opt.log_file != nullptr ? opt.log_file : "stderr",
         opt.disabled == 0 ? "none"
         : opt.disabled == (diag::kSurfaceExecutorch | diag::kSurfacePthreadpool) ? "executorch, pthreadpool"
         : (opt.disabled & diag::kSurfaceExecutorch) ? "executorch" : "pthreadpool");
  if (opt.group != nullptr) {
    // Read-only look at the ledger: `poolshim info` itself never joins the group.
    char path[160], why[320];
    long busy = 0;
    size_t members = 0, creator = 0;
    if (!budget::group::ledger_path(opt.group, path, sizeof path))
      printf("group: %s (name too long for a ledger path)\n", opt.group);
    else if (budget::group::peek(path, &busy, &members, &creator, why, sizeof why))
      printf("group: %s, ledger %s: %zu live member%s, %ld thread%s busy; each member bounds the "
             "group by its own budget (creator's: %zu)\n", opt.group, path, members,
             members == 1 ? "" : "s", busy, busy == 1 ? "" : "s", creator);
    else
      printf("group: %s (%s)\n", opt.group, why);
  } else {
    printf("group: none (the budget is this process's own; POOLSHIM_GROUP shares it)\n");
  }
  std::string tried;
  std::string lib = find_library(&tried);
  printf("library: %s\n", lib.empty() ? "not found next to this command" : lib.c_str());
  return kExitOk;
}

}  // namespace poolshim::cli
