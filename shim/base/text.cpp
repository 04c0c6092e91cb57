// Bounded text: see text.h.
#include "base/text.h"

#include <cstdio>
#include <cstring>

namespace poolshim::base {

Text::Text(char* buf, size_t cap) : buf_(buf), cap_(cap) {
  if (cap_ > 0) buf_[0] = '\0';
}

Text Text::after(char* buf, size_t cap) {
  Text t(nullptr, 0);
  t.buf_ = buf;
  t.cap_ = cap;
  if (cap > 0) {
    t.len_ = strnlen(buf, cap - 1);
    buf[t.len_] = '\0';
  }
  return t;
}

Text& Text::append(const char* s) { return append(s, static_cast<size_t>(-1)); }

Text& Text::append(const char* s, size_t n) {
  if (cap_ == 0) return *this;
  size_t want = strnlen(s, n);
  size_t take = want < room() ? want : room();
  std::memcpy(buf_ + len_, s, take);
  len_ += take;
  buf_[len_] = '\0';
  if (take < want) truncated_ = true;
  return *this;
}

Text& Text::append_char(char c) { return append(&c, 1); }

Text& Text::appendf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vappendf(fmt, ap);
  va_end(ap);
  return *this;
}

Text& Text::vappendf(const char* fmt, va_list ap) {
  if (cap_ == 0) return *this;
  // vsnprintf truncates and always terminates when given room for at least the NUL.
  int n = std::vsnprintf(buf_ + len_, cap_ - len_, fmt, ap);
  if (n < 0) {
    buf_[len_] = '\0';  // an encoding error: keep what was there
  } else if (static_cast<size_t>(n) > room()) {
    len_ = cap_ - 1;
    truncated_ = true;
  } else {
    len_ += static_cast<size_t>(n);
  }
  return *this;
}

Text& Text::append_sanitized(const char* value, size_t max_len) {
  size_t n = strnlen(value, max_len);
  while (n > 0 && (value[n - 1] == '\n' || value[n - 1] == '\r')) --n;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(value[i]);
    append_char((c < 0x20 || c == 0x7f) ? '?' : value[i]);
  }
  return *this;
}

}  // namespace poolshim::base
