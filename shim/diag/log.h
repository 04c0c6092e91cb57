// Logging that cannot hurt the host: a stack buffer, one write(2) per line, a "poolshim: " prefix,
// a recursion guard and a cap on lines. Never stdout, never exit, never malloc.
//
// The level and the sink come from config/ (POOLSHIM_LOG, POOLSHIM_LOG_FILE). config/ cannot
// log, so the bad values it met are written here, once, before the first line of any kind
// (any call below counts, log_enabled included).
#pragma once
#include "config/options.h"
#include "diag/log_sites.h"

namespace poolshim::diag {

// diag logs at the levels config/ parses.
using config::LogLevel;

// True when a message of this level would be written.
bool log_enabled(LogLevel level);

// printf-style; the text gets the "poolshim: " prefix and a trailing newline.
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// log() at most once per process for this site (log_sites.h).
void log_once(LogSite site, LogLevel level, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

// A warning about bad input or a degraded process, written to stderr even with logging off, at
// most once per process for this site (log_sites.h): "poolshim: warning: <text>".
void warn_once(LogSite site, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace poolshim::diag

#define POOLSHIM_LOG(level, ...)                                             \
  do {                                                                       \
    if (::poolshim::diag::log_enabled(::poolshim::diag::LogLevel::level))    \
      ::poolshim::diag::log(::poolshim::diag::LogLevel::level, __VA_ARGS__); \
  } while (0)
