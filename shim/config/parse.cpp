// The strict field parsers behind the option table, and the safe display of a bad value.
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/options.h"

namespace poolshim::config {

// The offending value as it may be shown in a message: at most 48 bytes, each byte that is not
// printable ASCII (control characters, non-UTF-8 or UTF-8 bytes) as \xHH, and the length when
// the value was cut, so a 4096-byte or binary value still gives one short, clean line.
const char* shown_value(const char* v, char* buf, size_t cap) {
  if (cap < 8) {  // too small to say anything useful; never written past
    if (cap > 0) buf[0] = '\0';
    return buf;
  }
  size_t n = 0, i = 0;
  for (; v[i] != '\0' && i < 48 && n + 5 < cap; ++i) {
    unsigned char c = static_cast<unsigned char>(v[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
      buf[n++] = static_cast<char>(c);
    else
      n += static_cast<size_t>(snprintf(buf + n, cap - n, "\\x%02x", c));
  }
  buf[n] = '\0';
  if (v[i] != '\0') snprintf(buf + n, cap - n, "... (%zu bytes)", strlen(v));
  return buf;
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
  static constexpr struct {
    const char* name;
    LogLevel level;
  } kLevels[] = {{"off", LogLevel::off},
                 {"warn", LogLevel::warn},
                 {"info", LogLevel::info},
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

bool parse_openmp(const char* text, bool* native) {
  if (text == nullptr) return false;
  if (strcmp(text, "forward") == 0) return *native = false, true;
  if (strcmp(text, "shim") == 0) return *native = true, true;
  return false;
}

bool parse_stack_size(const char* text, size_t* out) {
  if (text == nullptr) return false;
  const char* p = text;
  while (isspace(static_cast<unsigned char>(*p))) ++p;
  if (*p < '0' || *p > '9') return false;
  errno = 0;
  char* end;
  unsigned long long value = strtoull(p, &end, 10);
  if (errno != 0) return false;
  while (isspace(static_cast<unsigned char>(*end))) ++end;
  unsigned shift = 10;  // no suffix: kilobytes, as libgomp reads it
  if (*end != '\0') {
    switch (tolower(static_cast<unsigned char>(*end))) {
      case 'b': shift = 0; break;
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      default: return false;
    }
    ++end;
    while (isspace(static_cast<unsigned char>(*end))) ++end;
    if (*end != '\0') return false;
  }
  if (value > (SIZE_MAX >> shift)) return false;
  *out = static_cast<size_t>(value) << shift;
  return true;
}

bool parse_disable(const char* text, unsigned* out) {
  if (text == nullptr || *text == '\0') return false;  // set but empty: invalid, like the others
  unsigned mask = 0;
  const char* p = text;
  while (true) {
    const char* end = strchr(p, ',');
    size_t len = end ? static_cast<size_t>(end - p) : strlen(p);
    if (len == 3 && strncasecmp(p, "all", 3) == 0)
      mask |= kSurfaceAll;
    else if (len == 10 && strncasecmp(p, "executorch", 10) == 0)
      mask |= kSurfaceExecutorch;
    else if (len == 11 && strncasecmp(p, "pthreadpool", 11) == 0)
      mask |= kSurfacePthreadpool;
    else if (len == 6 && strncasecmp(p, "openmp", 6) == 0)
      mask |= kSurfaceOpenmp;
    else
      return false;  // unknown or empty item
    if (!end) break;
    p = end + 1;
  }
  *out = mask;
  return true;
}

}  // namespace poolshim::config
