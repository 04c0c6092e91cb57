// The option table and its strict parsers. This file and log.cpp are the only readers of the
// environment; they use secure_getenv, and read nothing at all in secure-execution mode.
#include "diag/options.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <sys/auxv.h>

#include "base/text.h"
#include "diag/log.h"

namespace poolshim::diag {
namespace {

// One row per variable: name, default, help. poolshim info and docs/environment.md list these.
constexpr OptionInfo kTable[] = {
    {"POOLSHIM_NUM_THREADS", "(unset: min of affinity and cgroup quota)",
     "thread budget for the process, a whole number from 1 to 4096"},
    {"POOLSHIM_LOG", "off", "off, warn, info or debug: what the shim explains on stderr"},
    {"POOLSHIM_LOG_FILE", "(unset: stderr)",
     "append log lines to this file instead: an absolute path (opened O_APPEND|O_CLOEXEC|"
     "O_NOFOLLOW|O_NONBLOCK)"},
    {"POOLSHIM_DISABLE", "(unset)",
     "comma list of surfaces to pass through untouched: executorch, pthreadpool, or all"},
    {"POOLSHIM_GROUP", "(unset: the budget is the process's own)",
     "share the budget with the processes of this group (same user): a name of 1 to 64 of "
     "A-Z a-z 0-9 _ . -"},
    {nullptr, nullptr, nullptr},
};

constexpr size_t kMaxThreads = 4096;

Options g_options;
pthread_once_t g_once = PTHREAD_ONCE_INIT;

const char* read_env(const char* name) {
  if (g_options.secure) return nullptr;
  const char* v = secure_getenv(name);
  return v;
}

}  // namespace

// The offending value as it may be shown in a warning: at most 48 bytes, each byte that is not
// printable ASCII (control characters, non-UTF-8 or UTF-8 bytes) as \xHH, and the length when
// the value was cut, so a 4096-byte or binary value still gives one short, clean line.
const char* shown_value(const char* v, char* buf, size_t cap) {
  if (cap < 8) {  // too small to say anything useful; never written past
    if (cap > 0) buf[0] = '\0';
    return buf;
  }
  base::Text text(buf, cap);
  size_t i = 0;
  for (; v[i] != '\0' && i < 48 && text.room() > 4; ++i) {  // an escape is never cut
    unsigned char c = static_cast<unsigned char>(v[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') text.append_char(static_cast<char>(c));
    else text.appendf("\\x%02x", c);
  }
  if (v[i] != '\0') text.appendf("... (%zu bytes)", strlen(v));
  return buf;
}

namespace {

void load() {
  Options o;
  o.secure = getauxval(AT_SECURE) != 0;
  g_options = o;  // secure flag first: read_env consults it
  if (o.secure) return;

  // The log level comes first so that the other warnings know where to go. Invalid values are
  // reported with warn_always: printed even when logging is off, once, and the default is kept.
  // A set but empty variable is invalid too (one line each): it is never what was meant.
  char b[256];
  if (const char* v = read_env("POOLSHIM_LOG")) {
    if (!parse_log_level(v, &o.log_level))
      warn_always("invalid POOLSHIM_LOG='%s' (want off, warn, info or debug); using off",
                  shown_value(v, b, sizeof b));
  }
  if (const char* v = read_env("POOLSHIM_LOG_FILE")) {
    if (parse_log_file(v)) o.log_file = v;
    else warn_always("invalid POOLSHIM_LOG_FILE='%s' (want an absolute path); logging to stderr",
                     shown_value(v, b, sizeof b));
  }
  if (const char* v = read_env("POOLSHIM_NUM_THREADS")) {
    if (!parse_threads(v, &o.num_threads))
      warn_always("invalid POOLSHIM_NUM_THREADS='%s' (want a whole number from 1 to %zu); "
                  "using the machine's budget", shown_value(v, b, sizeof b), kMaxThreads);
  }
  if (const char* v = read_env("POOLSHIM_DISABLE")) {
    if (!parse_disable(v, &o.disabled))
      warn_always("invalid POOLSHIM_DISABLE='%s' (want a comma list of executorch, "
                  "pthreadpool, all); nothing disabled", shown_value(v, b, sizeof b));
  }
  if (const char* v = read_env("POOLSHIM_GROUP")) {
    if (parse_group(v)) o.group = v;
    else warn_always("invalid POOLSHIM_GROUP='%s' (want 1 to 64 of A-Z a-z 0-9 _ . -); "
                     "not joining a group", shown_value(v, b, sizeof b));
  }
  g_options = o;
}

}  // namespace

const Options& options() {
  pthread_once(&g_once, load);
  return g_options;
}

void reload_options_for_testing() { load(); }

const OptionInfo* option_table() { return kTable; }

const char* option_raw(const char* name) {
  options();
  return read_env(name);
}

bool parse_threads(const char* text, size_t* out) {
  if (text == nullptr || *text == '\0') return false;
  size_t value = 0;
  for (const char* p = text; *p; ++p) {
    if (*p < '0' || *p > '9') return false;  // no sign, no spaces, no suffix
    value = value * 10 + static_cast<size_t>(*p - '0');
    if (value > kMaxThreads) return false;
  }
  if (value == 0) return false;
  *out = value;
  return true;
}

bool parse_log_level(const char* text, LogLevel* out) {
  static constexpr struct { const char* name; LogLevel level; } kLevels[] = {
      {"off", LogLevel::off}, {"warn", LogLevel::warn}, {"info", LogLevel::info},
      {"debug", LogLevel::debug}};
  if (text == nullptr) return false;
  for (const auto& l : kLevels) {
    if (strcasecmp(text, l.name) == 0) {
      *out = l.level;
      return true;
    }
  }
  return false;
}

bool parse_log_file(const char* text) {
  // Absolute: a relative path would follow the host's working directory around. PATH_MAX:
  // longer cannot be opened anyway.
  return text != nullptr && text[0] == '/' && strnlen(text, PATH_MAX) < PATH_MAX;
}

bool parse_group(const char* text) {
  if (text == nullptr) return false;
  size_t n = 0;
  for (const char* p = text; *p; ++p, ++n) {
    char c = *p;
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    if (!ok || n >= kMaxGroupName) return false;
  }
  return n > 0;
}

bool parse_disable(const char* text, unsigned* out) {
  if (text == nullptr || *text == '\0') return false;  // set but empty: invalid, like the others
  unsigned mask = 0;
  const char* p = text;
  while (true) {
    const char* end = strchr(p, ',');
    size_t len = end ? static_cast<size_t>(end - p) : strlen(p);
    if (len == 3 && strncasecmp(p, "all", 3) == 0) mask |= kSurfaceExecutorch | kSurfacePthreadpool;
    else if (len == 10 && strncasecmp(p, "executorch", 10) == 0) mask |= kSurfaceExecutorch;
    else if (len == 11 && strncasecmp(p, "pthreadpool", 11) == 0) mask |= kSurfacePthreadpool;
    else return false;  // unknown or empty item
    if (!end) break;
    p = end + 1;
  }
  *out = mask;
  return true;
}

}  // namespace poolshim::diag
