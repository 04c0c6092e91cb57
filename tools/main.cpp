// poolshim: run a command with the shared pool preloaded, audit modules, show the budget.
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "poolshim/version.h"

namespace {

const char kHelp[] =
    "usage: poolshim COMMAND [ARGS...]\n"
    "       poolshim --version | --help\n"
    "\n"
    "One process-wide CPU thread pool for modules that each bring their own (the ExecuTorch\n"
    "thread-pool ABI, pthreadpool), through LD_PRELOAD of libpoolshim.so.\n"
    "\n"
    "commands:\n"
    "  run [--threads N] [--log LEVEL] [--group NAME] -- CMD ARGS...\n"
    "                                          run CMD with libpoolshim.so preloaded\n"
    "  audit [--json] [--all] PATH... | --pid PID\n"
    "                                          which pool copies a preload can reach\n"
    "  info [--json] [--pid PID]               the thread budget and its sources, or a process\n"
    "  info --pools [--json] [--pid PID]       every thread pool of a process, merged or not\n"
    "  help [COMMAND]                          this text, or a command's\n"
    "\n"
    "  --version   print the version (the library's, the packages' and the Python module's)\n"
    "  -h, --help  this text\n"
    "\n"
    "`poolshim COMMAND --help` describes each command and its exit statuses; man poolshim.\n"
    "exit status: 2 on a usage error (unknown command, bad option).\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace poolshim::cli;
  if (argc < 2) {
    fputs(kHelp, stderr);
    return kExitUsage;
  }
  const char* cmd = argv[1];
  if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
    if (strcmp(cmd, "help") == 0 && argc > 2) {
      char help_flag[] = "--help";
      char* args[] = {argv[2], help_flag, nullptr};
      if (strcmp(argv[2], "run") == 0) return run_main(2, args);
      if (strcmp(argv[2], "audit") == 0) return audit_main(2, args);
      if (strcmp(argv[2], "info") == 0) return info_main(2, args);
      fprintf(stderr, "poolshim: unknown command '%s'\n\n%s", argv[2], kHelp);
      return kExitUsage;
    }
    fputs(kHelp, stdout);
    return kExitOk;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    printf("poolshim %s\n", POOLSHIM_VERSION_STRING);
    return kExitOk;
  }
  // Each subcommand sees its own name as argv[0] (getopt_long starts at argv[1]).
  if (strcmp(cmd, "run") == 0) return run_main(argc - 1, argv + 1);
  if (strcmp(cmd, "audit") == 0) return audit_main(argc - 1, argv + 1);
  if (strcmp(cmd, "info") == 0) return info_main(argc - 1, argv + 1);
  fprintf(stderr, "poolshim: unknown command '%s'\n\n%s", cmd, kHelp);
  return kExitUsage;
}
