// Bounded string building for the budget's reports: fixed buffers, no malloc, silent truncation
// (a report cut short is better than no report).
#pragma once
#include <cstddef>

namespace poolshim::budget {

// printf-style append to the NUL-terminated string in buf (capacity cap, including the NUL).
// Output that does not fit is cut off; buf stays NUL-terminated.
void appendf(char* buf, size_t cap, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// Copy at most cap - 1 bytes of src into buf, NUL-terminated.
void copy_text(char* buf, size_t cap, const char* src);

// Copy a value read from a file for quoting in a message: at most max_len bytes, the trailing
// newline dropped and control bytes replaced by '?', so garbage cannot break a log line.
void quote_value(char* buf, size_t cap, const char* value, size_t max_len);

}  // namespace poolshim::budget
