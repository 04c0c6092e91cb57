// MappedFile: open, fstat, mmap(PROT_READ, MAP_PRIVATE), close the descriptor at once (the
// mapping keeps the file alive). A file truncated by someone else while mapped would raise
// SIGBUS on access; the command accepts that risk, the shim only maps files of loaded modules.
#include "elf/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/no_cancel.h"

namespace poolshim::elf {

bool MappedFile::open(const char* path) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  close();
  if (path == nullptr || *path == '\0') {
    errno = ENOENT;
    return false;
  }
  int fd;
  do {
    fd = ::open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return false;
  struct stat st;
  int err = 0;
  if (fstat(fd, &st) != 0)
    err = errno;
  else if (S_ISDIR(st.st_mode))
    err = EISDIR;
  else if (!S_ISREG(st.st_mode) || st.st_size <= 0)
    err = EINVAL;
  if (err != 0) {
    ::close(fd);
    errno = err;
    return false;
  }
  return map(fd, static_cast<size_t>(st.st_size));
}

bool MappedFile::map(int fd, size_t size) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  close();
  void* p = MAP_FAILED;
  int err = EINVAL;
  if (size > 0) {
    p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    err = errno;
  }
  ::close(fd);
  if (p == MAP_FAILED) {
    errno = err;
    return false;
  }
  data_ = p;
  size_ = size;
  return true;
}

void MappedFile::close() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace poolshim::elf
