// libFuzzer target: the option parsers (shim/config/parse.cpp) and the way a warning shows a
// hostile value. Input: any bytes, used as one NUL-terminated value. Checks the parsers' contract
// besides "no crash": an accepted budget is digits only, 1..4096; a mask has only the known
// surface bits (kSurfaceAll); a shown value is NUL-terminated inside its buffer and holds printable
// ASCII only.
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include "config/options.h"

using namespace poolshim::config;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);  // c_str() stops at an inner NUL
  const char* v = text.c_str();

  size_t threads = 0;
  if (parse_threads(v, &threads)) {
    if (threads < 1 || threads > 4096 || strspn(v, "0123456789") != strlen(v)) abort();
  }
  LogLevel level = LogLevel::off;
  if (parse_log_level(v, &level) && (static_cast<int>(level) < 0 || static_cast<int>(level) > 3))
    abort();
  unsigned mask = 0;
  if (parse_disable(v, &mask) && (mask & ~kSurfaceAll) != 0) abort();
  if (parse_log_file(v) && v[0] != '/') abort();
  // A valid stack size starts with a digit once blanks are skipped.
  size_t stack = 0;
  if (parse_stack_size(v, &stack) &&
      !isdigit(static_cast<unsigned char>(v[strspn(v, " \t\n\v\f\r")])))
    abort();

  // Every buffer size, the tiny ones included: exactly sized heap copies let ASan see overruns.
  for (size_t cap :
       {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{13}, size_t{64}, size_t{256}}) {
    char* buf = static_cast<char*>(malloc(cap ? cap : 1));
    shown_value(v, buf, cap);
    if (cap > 0) {
      size_t n = strnlen(buf, cap);
      if (n == cap) abort();  // not terminated inside the buffer
      for (size_t i = 0; i < n; ++i)
        if (buf[i] < 0x20 || buf[i] > 0x7e) abort();
    }
    free(buf);
  }
  return 0;
}
