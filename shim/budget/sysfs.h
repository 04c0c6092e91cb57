// The one seam through which the budget reads /proc, /sys and cgroup files.
//
// Every path the budget opens is absolute ("/proc/self/cgroup", "/sys/fs/cgroup/a/cpu.max") and
// goes through open_file(), which prepends a root prefix. The prefix is "" in production; tests
// point it at a fixture tree (tests/unit/data/cgroup/<case>/) so the parsers run on files we
// control, the way cpuinfo's src/linux/smallfile.c and test/mock/ do.
//
// Reads use open/read into caller-owned or fixed-size buffers: no stdio, no malloc. The shim runs
// inside arbitrary processes (possibly from another library's constructor), so this code must not
// depend on anything having been initialised.
#pragma once
#include <cstddef>
#include <sys/types.h>

namespace poolshim::budget::sysfs {

// Set the prefix prepended to every path (nullptr or "" = the real filesystem). Tests only: not
// thread-safe against concurrent readers. Prefixes longer than 511 bytes are refused (false).
bool set_root_for_testing(const char* root);

// The current prefix ("" in production).
const char* root();

// open(root + path, O_RDONLY | O_CLOEXEC), retrying on EINTR. Returns an fd, or -1 with errno set
// (ENAMETOOLONG when the joined path does not fit in PATH_MAX).
int open_file(const char* path);

// Read the whole of a small file into buf (NUL-terminated). Returns its length, or -1 with errno
// set: the open/read error, or EFBIG when the file does not fit in cap - 1 bytes.
ssize_t read_small_file(const char* path, char* buf, size_t cap);

// Reads a file line by line through a fixed buffer. Lines longer than the buffer (mountinfo lines
// of overlay mounts can run to many kilobytes) are skipped whole and counted in skipped(); the
// lines the budget needs (cgroup entries) are short.
class LineReader {
 public:
  static constexpr size_t kBufferSize = 4096;

  explicit LineReader(const char* path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // False when the file could not be opened; error() then holds errno.
  bool ok() const { return fd_ >= 0; }
  // errno of the failed open or read, 0 if none.
  int error() const { return error_; }
  // Lines skipped because they did not fit in the buffer.
  size_t skipped() const { return skipped_; }

  // The next line without its '\n', NUL-terminated and writable in place (valid until the next
  // call). nullptr at the end of the file or after a read error (see error()).
  char* next(size_t* len);

 private:
  bool fill();  // read more bytes after compacting; false at EOF or error

  int fd_ = -1;
  int error_ = 0;
  bool eof_ = false;
  size_t skipped_ = 0;
  size_t begin_ = 0;  // first unconsumed byte in buf_
  size_t end_ = 0;    // one past the last valid byte in buf_
  char buf_[kBufferSize + 1];
};

}  // namespace poolshim::budget::sysfs
