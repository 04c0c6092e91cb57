// Bounded text: the one way the shim builds a string, into a fixed buffer the caller owns.
// No allocation and no lock, so it is usable in a signal handler, after fork() in the child, in a
// library constructor or while a log line is being written. Output that does not fit is cut off
// (a message cut short is better than none); the buffer is always NUL-terminated (cap > 0).
//
//   char line[128];
//   base::Text(line).append("cpuinfo: ").appendf("%zu cores", n);
//
// appendf uses vsnprintf: async-signal-safe in practice for the integer and string conversions
// the shim uses (glibc allocates only for floating-point with huge precision and for %m-style
// extensions, which the shim never uses).
#pragma once
#include <cstdarg>
#include <cstddef>

namespace poolshim::base {

class Text {
 public:
  // Writes into buf[0, cap), starting empty. cap == 0: nothing is ever written.
  Text(char* buf, size_t cap);
  template <size_t N>
  explicit Text(char (&buf)[N]) : Text(buf, N) {}

  // Continues after the NUL-terminated string already in buf (at most cap - 1 bytes of it).
  static Text after(char* buf, size_t cap);

  Text& append(const char* s);            // all of s, or what fits
  Text& append(const char* s, size_t n);  // at most n bytes of s (stops at a NUL)
  Text& append_char(char c);
  Text& appendf(const char* fmt, ...) __attribute__((format(printf, 2, 3)));
  Text& vappendf(const char* fmt, va_list ap) __attribute__((format(printf, 2, 0)));
  // A value read from a file or the environment, for quoting in a message: at most max_len bytes,
  // trailing newlines dropped and control bytes shown as '?', so garbage cannot break a log line.
  Text& append_sanitized(const char* value, size_t max_len);

  const char* c_str() const { return buf_; }
  size_t size() const { return len_; }
  // Bytes that can still be appended (the NUL excluded).
  size_t room() const { return cap_ == 0 ? 0 : cap_ - 1 - len_; }
  // True once something was cut off.
  bool truncated() const { return truncated_; }

 private:
  char* buf_;
  size_t cap_;
  size_t len_ = 0;
  bool truncated_ = false;
};

}  // namespace poolshim::base
