// A file's bytes for the ELF reader, without ever blocking: regular files are opened with
// O_NONBLOCK (a FIFO or device swapped in after the stat is refused, never read) and mapped
// read-only; archive members are spooled (audit_archive.cpp) into an unlinked sparse temporary
// file and mapped, so a member of any size costs the process a few MiB of memory.
#pragma once
#include <cstddef>
#include <string>

namespace poolshim::cli {

class FileImage {
 public:
  FileImage() = default;
  ~FileImage() { reset(); }
  FileImage(const FileImage&) = delete;
  FileImage& operator=(const FileImage&) = delete;

  // Maps a regular file. false with *error set ("a FIFO, not a file", strerror...) otherwise.
  // An empty file maps to size 0 (data() is nullptr) and returns true.
  bool open_regular(const std::string& path, std::string* error);
  // Maps the first `size` bytes of an open descriptor (taken over: closed by reset()).
  bool map_fd(int fd, size_t size, std::string* error);
  void reset();

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;
};

// "a FIFO", "a character device", ... for a st_mode that is not a regular file or folder.
const char* file_type_text(unsigned mode);

}  // namespace poolshim::cli
