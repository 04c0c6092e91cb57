#include "file_image.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace poolshim::cli {

const char* file_type_text(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFIFO: return "a FIFO";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFDIR: return "a folder";
    case S_IFLNK: return "a symbolic link";
  }
  return "not a regular file";
}

void FileImage::reset() {
  if (data_ != nullptr) munmap(data_, size_);
  if (fd_ >= 0) close(fd_);
  data_ = nullptr;
  size_ = 0;
  fd_ = -1;
}

bool FileImage::open_regular(const std::string& path, std::string* error) {
  reset();
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    *error = strerror(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *error = strerror(errno);
    close(fd);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *error = std::string(file_type_text(st.st_mode)) + ", not a file";
    close(fd);
    return false;
  }
  return map_fd(fd, static_cast<size_t>(st.st_size), error);
}

bool FileImage::map_fd(int fd, size_t size, std::string* error) {
  reset();
  fd_ = fd;
  if (size == 0) return true;
  void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) {
    *error = strerror(errno);
    reset();
    return false;
  }
  data_ = p;
  size_ = size;
  // The descriptor is not needed once mapped.
  close(fd_);
  fd_ = -1;
  return true;
}

}  // namespace poolshim::cli
