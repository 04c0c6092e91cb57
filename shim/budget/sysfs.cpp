// The file-reading seam: see sysfs.h.
#include "budget/sysfs.h"

#include "base/no_cancel.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace poolshim::budget::sysfs {
namespace {

// The root prefix. Written only by tests (set_root_for_testing) before they read.
constexpr size_t kRootCap = 512;
char g_root[kRootCap] = "";

ssize_t read_retry(int fd, char* buf, size_t n) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  for (;;) {
    ssize_t r = ::read(fd, buf, n);
    if (r >= 0 || errno != EINTR) return r;
  }
}

}  // namespace

bool set_root_for_testing(const char* root) {
  if (root == nullptr) root = "";
  size_t n = std::strlen(root);
  if (n >= kRootCap) return false;
  // A trailing '/' would give "root//proc/..."; harmless, but keep the joined paths clean.
  while (n > 0 && root[n - 1] == '/') --n;
  std::memcpy(g_root, root, n);
  g_root[n] = '\0';
  return true;
}

const char* root() { return g_root; }

int open_file(const char* path) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  char full[PATH_MAX];
  size_t root_len = std::strlen(g_root);
  size_t path_len = std::strlen(path);
  if (root_len + path_len + 1 > sizeof(full)) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(full, g_root, root_len);
  std::memcpy(full + root_len, path, path_len + 1);
  for (;;) {
    int fd = ::open(full, O_RDONLY | O_CLOEXEC);
    if (fd >= 0 || errno != EINTR) return fd;
  }
}

ssize_t read_small_file(const char* path, char* buf, size_t cap) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  if (cap == 0) {
    errno = EINVAL;
    return -1;
  }
  int fd = open_file(path);
  if (fd < 0) return -1;
  size_t len = 0;
  int err = 0;
  for (;;) {
    if (len == cap - 1) {
      // Full: the file fits only if the next read finds its end.
      char probe;
      ssize_t r = read_retry(fd, &probe, 1);
      if (r < 0)
        err = errno;
      else if (r > 0)
        err = EFBIG;
      break;
    }
    ssize_t r = read_retry(fd, buf + len, cap - 1 - len);
    if (r < 0) {
      err = errno;
      break;
    }
    if (r == 0) break;
    len += static_cast<size_t>(r);
  }
  ::close(fd);
  buf[len] = '\0';
  if (err != 0) {
    errno = err;
    return -1;
  }
  return static_cast<ssize_t>(len);
}

LineReader::LineReader(const char* path) {
  fd_ = open_file(path);
  if (fd_ < 0) error_ = errno;
  buf_[0] = '\0';
}

LineReader::~LineReader() {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::fill() {
  if (fd_ < 0 || eof_) return false;
  // Move the unconsumed tail to the front so the buffer has room at its end.
  if (begin_ > 0) {
    std::memmove(buf_, buf_ + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == kBufferSize) return false;  // full of one line: the caller skips it
  ssize_t r = read_retry(fd_, buf_ + end_, kBufferSize - end_);
  if (r < 0) {
    error_ = errno;
    eof_ = true;
    return false;
  }
  if (r == 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<size_t>(r);
  return true;
}

char* LineReader::next(size_t* len) {
  if (fd_ < 0) return nullptr;
  bool skipping = false;  // inside a line too long for the buffer: drop bytes up to its '\n'
  for (;;) {
    char* start = buf_ + begin_;
    void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl != nullptr) {
      char* line_end = static_cast<char*>(nl);
      begin_ = static_cast<size_t>(line_end - buf_) + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      *line_end = '\0';
      if (len) *len = static_cast<size_t>(line_end - start);
      return start;
    }
    if (fill()) continue;
    if (error_ != 0) return nullptr;
    if (!eof_) {
      // The buffer holds one line with no '\n' yet: too long. Drop it and keep dropping.
      if (!skipping) ++skipped_;
      skipping = true;
      begin_ = end_ = 0;
      continue;
    }
    // End of file: a last line without '\n' is still a line (unless it is the tail of a
    // skipped one).
    if (begin_ == end_ || skipping) return nullptr;
    buf_[end_] = '\0';
    if (len) *len = end_ - begin_;
    char* line = buf_ + begin_;
    begin_ = end_;
    return line;
  }
}

}  // namespace poolshim::budget::sysfs
