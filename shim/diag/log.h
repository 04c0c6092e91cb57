// Logging that cannot hurt the host: a stack buffer, one write(2) per line, a "poolshim: " prefix,
// a recursion guard and a cap on lines. Never stdout, never exit, never malloc.
#pragma once
#include "diag/options.h"

namespace poolshim::diag {

// True when a message of this level would be written.
bool log_enabled(LogLevel level);

// printf-style; the text gets the "poolshim: " prefix and a trailing newline.
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// A warning about bad input that is printed even with logging off (once per call site's key).
void warn_always(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace poolshim::diag

#define POOLSHIM_LOG(level, ...)                                                        \
  do {                                                                                  \
    if (::poolshim::diag::log_enabled(::poolshim::diag::LogLevel::level))               \
      ::poolshim::diag::log(::poolshim::diag::LogLevel::level, __VA_ARGS__);            \
  } while (0)
