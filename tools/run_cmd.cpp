// poolshim run [--threads N] [--log LEVEL] [--group NAME] [--library PATH] [--no-runtime-env] --
// CMD ARGS... Prepends libpoolshim.so to LD_PRELOAD (keeping what is there), sets
// POOLSHIM_NUM_THREADS, POOLSHIM_LOG and POOLSHIM_GROUP when asked, bounds the other runtimes'
// pools (OpenMP, OpenBLAS, MKL) to the same budget when their variables are unset, and execs the
// command in place (same pid, same stdio).
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "budget/budget.h"
#include "cli.h"
#include "config/options.h"

namespace poolshim::cli {
namespace {

const char kRunHelp[] =
    "usage: poolshim run [--threads N] [--log LEVEL] [--group NAME] [--library PATH]\n"
    "                    [--no-runtime-env] [--] CMD [ARGS...]\n"
    "\n"
    "Runs CMD with libpoolshim.so preloaded, so that the thread pools of the modules it loads\n"
    "become one process-wide pool.\n"
    "\n"
    "  --threads N       set POOLSHIM_NUM_THREADS=N, the thread budget (1..4096)\n"
    "  --log LEVEL       set POOLSHIM_LOG=LEVEL: off, warn, info (explains every module) or debug\n"
    "  --group NAME      set POOLSHIM_GROUP=NAME: share one budget with other processes of the "
    "group\n"
    "  --library PATH    preload this libpoolshim.so instead of the one next to the command\n"
    "  --no-runtime-env  leave OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS alone\n"
    "  -h, --help        this text\n"
    "\n"
    "Other runtimes' pools (OpenMP, OpenBLAS, MKL) are not merged; so that one budget covers them\n"
    "too, OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS are set to the budget (N, or\n"
    "the budget computed here) when they are unset; values already set are kept.\n"
    "\n"
    "The library is found relative to this command (../lib/libpoolshim.so in a build tree, the\n"
    "install's libdir otherwise) and put first in LD_PRELOAD; what LD_PRELOAD held is kept after\n"
    "it. Options after CMD belong to CMD.\n"
    "\n"
    "exit status: CMD's own status; 2 on a usage error or when the library is not found;\n"
    "127 when CMD cannot be executed.\n";

int usage_error(const std::string& msg) {
  fprintf(stderr, "poolshim run: %s\n(see poolshim run --help)\n", msg.c_str());
  return kExitUsage;
}

// True when LD_PRELOAD already names this library (ld.so separates entries by ':' or ' ').
bool already_preloaded(const std::string& list, const std::string& lib) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find_first_of(": ", start);
    if (end == std::string::npos) end = list.size();
    std::string item = list.substr(start, end - start);
    char real[PATH_MAX];
    if (!item.empty() && (item == lib || (realpath(item.c_str(), real) && lib == real)))
      return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

int run_main(int argc, char** argv) {
  const char* threads = nullptr;
  const char* level = nullptr;
  const char* group = nullptr;
  bool runtime_env = true;
  std::string library;
  static const option kOptions[] = {{"threads", required_argument, nullptr, 't'},
                                    {"log", required_argument, nullptr, 'l'},
                                    {"group", required_argument, nullptr, 'g'},
                                    {"library", required_argument, nullptr, 'L'},
                                    {"no-runtime-env", no_argument, nullptr, 'n'},
                                    {"help", no_argument, nullptr, 'h'},
                                    {nullptr, 0, nullptr, 0}};
  int c;
  // "+": stop at the first argument that is not an option; it starts the command.
  while ((c = next_option(argc, argv, "+:h", kOptions)) != -1) {
    switch (c) {
      case 't': threads = optarg; break;
      case 'l': level = optarg; break;
      case 'g': group = optarg; break;
      case 'L': library = optarg; break;
      case 'n': runtime_env = false; break;
      case 'h': fputs(kRunHelp, stdout); return kExitOk;
      case ':': return usage_error(std::string("option ") + argv[optind - 1] + " wants a value");
      default: return usage_error(std::string("unknown option ") + argv[optind - 1]);
    }
  }
  int i = optind;
  if (i >= argc) return usage_error("no command given");

  size_t n = 0;
  // The options' values are the variables' values: the same parsers, the same "want" texts.
  auto refuse = [](const char* option, const char* variable, const char* value) {
    return usage_error(std::string(option) + " wants " + config::find_option(variable)->want +
                       ", not '" + value + "'");
  };
  if (threads != nullptr && !config::parse_threads(threads, &n))
    return refuse("--threads", "POOLSHIM_NUM_THREADS", threads);
  config::LogLevel lv;
  if (level != nullptr && !config::parse_log_level(level, &lv))
    return refuse("--log", "POOLSHIM_LOG", level);
  if (group != nullptr && !config::parse_group(group))
    return refuse("--group", "POOLSHIM_GROUP", group);

  if (library.empty()) {
    std::string tried;
    library = find_library(&tried);
    if (library.empty()) {
      fprintf(stderr,
              "poolshim run: libpoolshim.so not found; looked for:\n%s"
              "(use --library PATH)\n",
              tried.c_str());
      return kExitUsage;
    }
  } else {
    char real[PATH_MAX];
    if (realpath(library.c_str(), real) == nullptr)
      return usage_error("cannot find the library " + library);
    library = real;
  }
  // ld.so splits LD_PRELOAD at ':' and ' ': a path containing either cannot be preloaded.
  if (library.find_first_of(": ") != std::string::npos)
    return usage_error("cannot preload " + library + ": its path contains ':' or a space");

  const char* old = getenv("LD_PRELOAD");
  std::string preload = old != nullptr ? old : "";
  if (!already_preloaded(preload, library))
    preload = preload.empty() ? library : library + ":" + preload;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  if (threads != nullptr) setenv("POOLSHIM_NUM_THREADS", threads, 1);
  if (level != nullptr) setenv("POOLSHIM_LOG", level, 1);
  if (group != nullptr) setenv("POOLSHIM_GROUP", group, 1);
  if (runtime_env) {
    // The budget the preloaded shim will compute: --threads, else POOLSHIM_NUM_THREADS, the
    // affinity mask and the cgroup quota as this process sees them (the child inherits both).
    size_t budget = n != 0 ? n : budget::current().threads;
    std::string text = std::to_string(budget);
    for (const char* var : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"})
      setenv(var, text.c_str(), 0);  // 0: a value already set is kept
  }

  execvp(argv[i], argv + i);
  fprintf(stderr, "poolshim run: cannot execute %s: %s\n", argv[i], strerror(errno));
  return kExitExecFailed;
}

}  // namespace poolshim::cli
