// MappedFile: open, fstat, mmap(PROT_READ, MAP_PRIVATE), close the descriptor at once (the
// mapping keeps the file alive). A file truncated by someone else while mapped would raise
// SIGBUS on access; the tools accept that risk, the shim only maps files of loaded modules.
#include "elf/mapped_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace poolshim::elf {

bool MappedFile::open(const char* path) {
  close();
  if (path == nullptr || *path == '\0') {
    errno = ENOENT;
    return false;
  }
  int fd;
  do {
    fd = ::open(path, O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0;
  if (ok && (!S_ISREG(st.st_mode) || st.st_size <= 0)) {
    errno = S_ISREG(st.st_mode) ? EINVAL : EISDIR;
    ok = false;
  }
  if (ok) {
    void* p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      data_ = p;
      size_ = static_cast<size_t>(st.st_size);
    } else {
      ok = false;
    }
  }
  int saved = errno;
  ::close(fd);
  errno = saved;
  return ok;
}

void MappedFile::close() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace poolshim::elf
