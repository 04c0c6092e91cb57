// Bounded string building: see text.h.
#include "budget/text.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace poolshim::budget {

void appendf(char* buf, size_t cap, const char* fmt, ...) {
  if (cap == 0) return;
  size_t len = strnlen(buf, cap - 1);
  buf[len] = '\0';
  va_list ap;
  va_start(ap, fmt);
  // vsnprintf truncates and always terminates when given room for at least the NUL.
  std::vsnprintf(buf + len, cap - len, fmt, ap);
  va_end(ap);
}

void copy_text(char* buf, size_t cap, const char* src) {
  if (cap == 0) return;
  size_t n = strnlen(src, cap - 1);
  std::memcpy(buf, src, n);
  buf[n] = '\0';
}

void quote_value(char* buf, size_t cap, const char* value, size_t max_len) {
  if (cap == 0) return;
  size_t n = strnlen(value, max_len);
  while (n > 0 && (value[n - 1] == '\n' || value[n - 1] == '\r')) --n;
  if (n > cap - 1) n = cap - 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    buf[i] = (c < 0x20 || c == 0x7f) ? '?' : value[i];
  }
  buf[n] = '\0';
}

}  // namespace poolshim::budget
