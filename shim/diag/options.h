// The shim's settings, read once from the environment. diag/ is the only place that calls
// secure_getenv; every other part asks options().
#pragma once
#include <cstddef>

namespace poolshim::diag {

enum class LogLevel : int { off = 0, warn = 1, info = 2, debug = 3 };

// Surfaces that POOLSHIM_DISABLE can pass through untouched.
enum Surface : unsigned { kSurfaceExecutorch = 1u << 0, kSurfacePthreadpool = 1u << 1 };

struct Options {
  size_t num_threads = 0;       // POOLSHIM_NUM_THREADS; 0 = not set (budget from the machine)
  LogLevel log_level = LogLevel::off;
  const char* log_file = nullptr;  // POOLSHIM_LOG_FILE; nullptr = stderr
  unsigned disabled = 0;        // POOLSHIM_DISABLE as a mask of Surface bits
  const char* group = nullptr;  // POOLSHIM_GROUP (validated by parse_group); nullptr = none
  bool secure = false;          // AT_SECURE: the environment was not read
};

// Parsed on first call (thread-safe, once). Invalid values (set but empty ones included) produce
// one warning line each, even with logging off, and keep the default.
const Options& options();

// One row of the option table; the table drives parsing, the defaults, `poolshim info` and docs.
struct OptionInfo {
  const char* name;
  const char* default_text;
  const char* help;
};
// The table, terminated by an entry with name == nullptr.
const OptionInfo* option_table();
// The raw text of an option as read (nullptr when unset or in secure mode).
const char* option_raw(const char* name);

// Parsers, exposed for unit tests. Each returns false (and leaves *out alone) on invalid text.
bool parse_threads(const char* text, size_t* out);
bool parse_log_level(const char* text, LogLevel* out);
bool parse_disable(const char* text, unsigned* out);
// POOLSHIM_LOG_FILE: an absolute path shorter than PATH_MAX.
bool parse_log_file(const char* text);
// A value as a warning shows it: at most 48 bytes, non-printable bytes as \xHH, the length when
// cut. Always NUL-terminated within cap; returns buf.
const char* shown_value(const char* text, char* buf, size_t cap);
// A group name: 1 to kMaxGroupName characters of [A-Za-z0-9_.-] (it becomes part of a file name
// under /dev/shm, so no '/', no spaces, nothing to escape).
constexpr size_t kMaxGroupName = 64;
bool parse_group(const char* text);

// Re-read the environment (tests only; not thread-safe against concurrent options() users).
void reload_options_for_testing();

}  // namespace poolshim::diag
