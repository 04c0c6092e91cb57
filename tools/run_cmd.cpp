// poolshim run [--threads N] [--log LEVEL] [--group NAME] [--library PATH] -- CMD ARGS...
// Prepends libpoolshim.so to LD_PRELOAD (keeping what is there), sets POOLSHIM_NUM_THREADS and
// POOLSHIM_LOG / POOLSHIM_GROUP when asked, and execs the command in place (same pid, same stdio).
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "cli.h"
#include "diag/options.h"

namespace poolshim::cli {
namespace {

const char kRunHelp[] =
    "usage: poolshim run [--threads N] [--log LEVEL] [--group NAME] [--library PATH] [--] CMD [ARGS...]\n"
    "\n"
    "Runs CMD with libpoolshim.so preloaded, so that the thread pools of the modules it loads\n"
    "become one process-wide pool.\n"
    "\n"
    "  --threads N     set POOLSHIM_NUM_THREADS=N, the thread budget (1..4096)\n"
    "  --log LEVEL     set POOLSHIM_LOG=LEVEL: off, warn, info (explains every module) or debug\n"
    "  --group NAME    set POOLSHIM_GROUP=NAME: share the budget with the other processes of\n"
    "                  this group (same user; NAME is 1 to 64 of A-Z a-z 0-9 _ . -)\n"
    "  --library PATH  preload this libpoolshim.so instead of the one next to the command\n"
    "  -h, --help      this text\n"
    "\n"
    "The library is found relative to this command (../lib/libpoolshim.so in a build tree, the\n"
    "install's libdir otherwise) and put first in LD_PRELOAD; what LD_PRELOAD held is kept after\n"
    "it. Options after CMD belong to CMD.\n"
    "\n"
    "exit status: CMD's own status; 2 on a usage error or when the library is not found;\n"
    "127 when CMD cannot be executed.\n";

int usage_error(const char* fmt, const char* arg) {
  fprintf(stderr, "poolshim run: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(see poolshim run --help)\n");
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
    if (!item.empty() && (item == lib || (realpath(item.c_str(), real) && lib == real))) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

int run_main(int argc, char** argv) {
  const char* threads = nullptr;
  const char* level = nullptr;
  const char* group = nullptr;
  std::string library;
  int i = 0;
  for (; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--") == 0) {
      ++i;
      break;
    }
    if (a[0] != '-') break;  // the command starts here
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(kRunHelp, stdout);
      return kExitOk;
    }
    bool has_value = i + 1 < argc;
    if (strcmp(a, "--threads") == 0 && has_value) threads = argv[++i];
    else if (strncmp(a, "--threads=", 10) == 0) threads = a + 10;
    else if (strcmp(a, "--log") == 0 && has_value) level = argv[++i];
    else if (strncmp(a, "--log=", 6) == 0) level = a + 6;
    else if (strcmp(a, "--group") == 0 && has_value) group = argv[++i];
    else if (strncmp(a, "--group=", 8) == 0) group = a + 8;
    else if (strcmp(a, "--library") == 0 && has_value) library = argv[++i];
    else if (strncmp(a, "--library=", 10) == 0) library = a + 10;
    else return usage_error("unknown option or missing value: %s", a);
  }
  if (i >= argc) return usage_error("%s", "no command given");

  size_t n = 0;
  if (threads != nullptr && !diag::parse_threads(threads, &n))
    return usage_error("--threads wants a whole number from 1 to 4096, not '%s'", threads);
  diag::LogLevel lv;
  if (level != nullptr && !diag::parse_log_level(level, &lv))
    return usage_error("--log wants off, warn, info or debug, not '%s'", level);
  if (group != nullptr && !diag::parse_group(group))
    return usage_error("--group wants 1 to 64 of A-Z a-z 0-9 _ . -, not '%s'", group);

  if (library.empty()) {
    std::string tried;
    library = find_library(&tried);
    if (library.empty()) {
      fprintf(stderr, "poolshim run: libpoolshim.so not found; looked for:\n%s"
                      "(use --library PATH)\n", tried.c_str());
      return kExitUsage;
    }
  } else {
    char real[PATH_MAX];
    if (realpath(library.c_str(), real) == nullptr)
      return usage_error("cannot find the library %s", library.c_str());
    library = real;
  }
  // ld.so splits LD_PRELOAD at ':' and ' ': a path containing either cannot be preloaded.
  if (library.find_first_of(": ") != std::string::npos)
    return usage_error("cannot preload %s: its path contains ':' or a space", library.c_str());

  const char* old = getenv("LD_PRELOAD");
  std::string preload = old != nullptr ? old : "";
  if (!already_preloaded(preload, library)) preload = preload.empty() ? library : library + ":" + preload;
  setenv("LD_PRELOAD", preload.c_str(), 1);
  if (threads != nullptr) setenv("POOLSHIM_NUM_THREADS", threads, 1);
  if (level != nullptr) setenv("POOLSHIM_LOG", level, 1);
  if (group != nullptr) setenv("POOLSHIM_GROUP", group, 1);

  execvp(argv[i], argv + i);
  fprintf(stderr, "poolshim run: cannot execute %s: %s\n", argv[i], strerror(errno));
  return kExitExecFailed;
}

}  // namespace poolshim::cli
