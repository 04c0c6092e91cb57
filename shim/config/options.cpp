// The option table and the load that walks it (see options.h). This file is the only reader of
// the environment in the shim: secure_getenv, and nothing at all in secure-execution mode.
#include "config/options.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

namespace poolshim::config {
namespace {

bool store_threads(const char* text, Options* o) {
  if (text != nullptr && strcmp(text, "cores") == 0) {
    o->num_threads = 0;
    o->num_threads_cores = true;
    return true;
  }
  return parse_threads(text, &o->num_threads);
}
bool store_log_level(const char* text, Options* o) { return parse_log_level(text, &o->log_level); }
bool store_disabled(const char* text, Options* o) { return parse_disable(text, &o->disabled); }
bool store_log_file(const char* text, Options* o) {
  if (!parse_log_file(text)) return false;
  o->log_file = text;  // the environment's own string: it lives as long as the process's environ
  return true;
}
// A bad value forwards (libgomp, exactly as without the shim: the safe side), not the default.
bool store_openmp(const char* text, Options* o) {
  if (parse_openmp(text, &o->openmp_native)) return true;
  o->openmp_native = false;
  return false;
}
bool store_kmpc(const char* text, Options* o) {
  if (parse_openmp(text, &o->kmpc_native)) return true;
  o->kmpc_native = false;
  return false;
}
bool store_group(const char* text, Options* o) {
  if (!parse_group(text)) return false;
  o->group = text;
  return true;
}

// The bounds as text, for the doc and the messages (static_asserts below keep them in step).
#define POOLSHIM_MAX_THREADS_TEXT "4096"
#define POOLSHIM_MAX_GROUP_TEXT "64"

// One row per variable, in the order `poolshim info` and docs/environment.md list them.
// name, default, one-line doc, what is valid, what a bad value leads to, the parser.
constexpr Option kTable[kOptionCount] = {
    {"POOLSHIM_NUM_THREADS", "unset: min(affinity mask, cgroup quota)",
     "thread budget for the process, a whole number from 1 to " POOLSHIM_MAX_THREADS_TEXT
     ", or cores (one thread per physical core of the affinity mask)",
     "a whole number from 1 to " POOLSHIM_MAX_THREADS_TEXT " or cores",
     "using the machine's budget", store_threads},
    {"POOLSHIM_LOG", "off", "off, warn, info or debug: what the shim explains on stderr",
     "off, warn, info or debug", "using off", store_log_level},
    {"POOLSHIM_LOG_FILE", "unset: stderr",
     "append log lines to this file instead: an absolute path (opened O_APPEND|O_CLOEXEC|"
     "O_NOFOLLOW|O_NONBLOCK)",
     "an absolute path", "logging to stderr", store_log_file},
    {"POOLSHIM_DISABLE", "unset",
     "comma list of surfaces to pass through untouched: executorch, pthreadpool, openmp, or all",
     "a comma list of executorch, pthreadpool, openmp, all", "nothing disabled", store_disabled},
    {"POOLSHIM_GROUP", "unset: the budget is the process's own",
     "share the budget with the processes of this group (same user): a name of 1 "
     "to " POOLSHIM_MAX_GROUP_TEXT " of A-Z a-z 0-9 _ . -",
     "1 to " POOLSHIM_MAX_GROUP_TEXT " of A-Z a-z 0-9 _ . -", "not joining a group", store_group},
    {"POOLSHIM_OPENMP", "shim",
     "who runs GOMP_*/omp_* calls: shim (the native runtime: parallel regions on the shim's "
     "workers, docs/openmp.md) or forward (libgomp, exactly as without the shim)",
     "shim or forward", "forwarding to libgomp", store_openmp},
    {"POOLSHIM_KMPC", "forward",
     "who runs LLVM OpenMP's __kmpc_* calls (clang-built code): forward (libomp, as without "
     "the shim) or shim (the native runtime, in a process whose every __kmpc call it has; "
     "experimental, docs/openmp.md)",
     "shim or forward", "forwarding to libomp", store_kmpc},
};

constexpr bool same_number(const char* text, size_t n) {
  size_t v = 0;
  for (; *text != '\0'; ++text) v = v * 10 + static_cast<size_t>(*text - '0');
  return v == n;
}
static_assert(same_number(POOLSHIM_MAX_THREADS_TEXT, kMaxThreads), "kMaxThreads and its text");
static_assert(same_number(POOLSHIM_MAX_GROUP_TEXT, kMaxGroupName), "kMaxGroupName and its text");

Options g_options;
pthread_once_t g_once = PTHREAD_ONCE_INIT;

const char* read_env(const char* name) { return g_options.secure ? nullptr : secure_getenv(name); }

void add_problem(Options* o, const Option& row, const char* text) {
  char shown[256];
  snprintf(o->problems[o->problem_count++].line, kProblemCap, "invalid %s='%s' (want %s); %s",
           row.name, shown_value(text, shown, sizeof shown), row.want, row.fallback);
}

void load() {
  Options o;
  o.secure = getauxval(AT_SECURE) != 0;
  g_options = o;  // the secure flag first: read_env consults it
  if (o.secure) return;
  // A set but empty variable is invalid too (one problem each): it is never what was meant.
  for (const Option& row : kTable) {
    const char* text = read_env(row.name);
    if (text != nullptr && !row.parse(text, &o)) add_problem(&o, row, text);
  }
  g_options = o;
}

}  // namespace

const Option* option_table() { return kTable; }

const Option* find_option(const char* name) {
  for (const Option& row : kTable)
    if (strcmp(row.name, name) == 0) return &row;
  return nullptr;
}

const Options& options() {
  pthread_once(&g_once, load);
  return g_options;
}

void reload_for_testing() { load(); }

const char* raw_value(const char* name) {
  options();  // the secure flag
  return read_env(name);
}

size_t openmp_stack_request() {
  size_t bytes = 0;
  if (parse_stack_size(raw_value("OMP_STACKSIZE"), &bytes) ||
      parse_stack_size(raw_value("GOMP_STACKSIZE"), &bytes))
    return bytes;
  return 0;
}

}  // namespace poolshim::config
