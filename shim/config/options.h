// The shim's settings: one table of options that IS the parser. Each row names a variable, its
// default, the one-line doc, what a valid value is and what happens to a bad one, and the
// function that parses it into Options. Parsing, the defaults, the bad-value messages,
// `poolshim info` and docs/environment.md (checked by tests/unit/docs_test.cpp) all come
// from the table.
//
// config/ depends on nothing else in the shim; it is the only place that reads the environment
// (secure_getenv, and nothing at all in secure-execution mode). It cannot log either: the log
// is configured by it (POOLSHIM_LOG, POOLSHIM_LOG_FILE), so logging from here would be a cycle.
// Instead a bad value becomes a finished message line in Options::problems, and diag/ writes
// those lines once, before its first log line of any kind (diag/log.cpp).
#pragma once
#include <cstddef>

namespace poolshim::config {

enum class LogLevel : int { off = 0, warn = 1, info = 2, debug = 3 };

// Surfaces that POOLSHIM_DISABLE can pass through untouched.
enum Surface : unsigned {
  kSurfaceExecutorch = 1u << 0,
  kSurfacePthreadpool = 1u << 1,
  kSurfaceOpenmp = 1u << 2,  // GOMP_*/omp_*: forwarded to libgomp, whatever POOLSHIM_OPENMP says
};
constexpr unsigned kSurfaceAll = kSurfaceExecutorch | kSurfacePthreadpool | kSurfaceOpenmp;

constexpr size_t kMaxThreads = 4096;  // POOLSHIM_NUM_THREADS: 1 .. kMaxThreads
constexpr size_t kMaxGroupName = 64;  // POOLSHIM_GROUP: 1 .. kMaxGroupName characters
constexpr size_t kOptionCount = 7;    // rows in the table
constexpr size_t kProblemCap = 320;   // one message line, NUL included

// "invalid NAME='shown value' (want ...); fallback": one per bad variable, without the
// "poolshim: warning: " prefix that diag/ adds when it writes the line.
struct Problem {
  char line[kProblemCap]{};
};

struct Options {
  size_t num_threads = 0;          // POOLSHIM_NUM_THREADS; 0 = not set (budget from the machine)
  bool num_threads_cores = false;  // POOLSHIM_NUM_THREADS=cores: one thread per physical core
  LogLevel log_level = LogLevel::off;
  const char* log_file = nullptr;  // POOLSHIM_LOG_FILE; nullptr = stderr
  unsigned disabled = 0;           // POOLSHIM_DISABLE as a mask of Surface bits
  const char* group = nullptr;     // POOLSHIM_GROUP; nullptr = none
  bool openmp_native = true;       // POOLSHIM_OPENMP: the native OpenMP runtime (forward: off)
  bool kmpc_native = false;        // POOLSHIM_KMPC: LLVM OpenMP's __kmpc calls natively too
  bool secure = false;             // AT_SECURE: the environment was not read
  Problem problems[kOptionCount];
  size_t problem_count = 0;  // bad values met, in table order
};

// One row of the table.
struct Option {
  const char* name;          // the environment variable
  const char* default_text;  // the default, as docs/environment.md and `poolshim info` show it
  const char* help;          // one-line doc
  const char* want;          // what a valid value is, for the bad-value message
  const char* fallback;      // what happens instead, for the bad-value message
  // Parses text into its field of *out; false (and *out left alone) when text is invalid.
  bool (*parse)(const char* text, Options* out);
};

// The table: kOptionCount rows, in the order they are parsed and listed.
const Option* option_table();
// The row of a variable, nullptr when the table has none.
const Option* find_option(const char* name);

// Parsed on first call (thread-safe, once). Invalid values (set but empty ones included) keep
// the default and add one line to problems.
const Options& options();

// The raw text of a variable as read, nullptr when unset or in secure mode. For the table's
// variables (`poolshim info`) and for the ones the shim only shows, never acts on
// (OMP_NUM_THREADS and co. in report/runtimes.cpp).
const char* raw_value(const char* name);

// The field parsers the table uses, for unit tests, the fuzz target and `poolshim run`'s
// options. Each returns false (and leaves *out alone) on invalid text.
bool parse_threads(const char* text, size_t* out);
bool parse_log_level(const char* text, LogLevel* out);
bool parse_disable(const char* text, unsigned* out);
// POOLSHIM_LOG_FILE: an absolute path shorter than PATH_MAX.
bool parse_log_file(const char* text);
// A group name: 1 to kMaxGroupName characters of [A-Za-z0-9_.-] (it becomes part of a file name
// under /dev/shm, so no '/', no spaces, nothing to escape).
bool parse_group(const char* text);
// POOLSHIM_OPENMP: "shim" (true, the default) or "forward" (false); POOLSHIM_KMPC the same words
// (there "forward" is the default).
bool parse_openmp(const char* text, bool* native);
// OMP_STACKSIZE's syntax, as libgomp reads it: a whole number, then optionally B, K, M or G
// (any case; no suffix: K), blanks around; in bytes.
bool parse_stack_size(const char* text, size_t* out);
// The stack the program asks OpenMP threads to have: OMP_STACKSIZE, else GOMP_STACKSIZE, when
// valid (libgomp's order); 0 otherwise. An invalid value is libgomp's to report (it does).
size_t openmp_stack_request();

// A value as a message shows it: at most 48 bytes, non-printable bytes as \xHH, the length when
// cut. Always NUL-terminated within cap; returns buf.
const char* shown_value(const char* text, char* buf, size_t cap);

// Re-read the environment (tests only; not thread-safe against concurrent options() users).
void reload_for_testing();

}  // namespace poolshim::config
