// A whole file mapped read-only (for Reader::open_file). No stdio, no heap. Shared by the shim
// (the file behind a loaded module) and the command (audited files and archive members).
#pragma once
#include <cstddef>

namespace poolshim::elf {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile() { close(); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps a regular file. Opened without blocking (a FIFO or device swapped in for the file is
  // refused, never read). Returns false (errno set) when it cannot be opened, is not a regular
  // file (EISDIR for a folder, EINVAL otherwise), is empty or cannot be mapped.
  bool open(const char* path);
  // Maps the first `size` bytes of an open descriptor, which it takes over (closed in every
  // case). Returns false (errno set) when size is 0 or the mapping fails.
  bool map(int fd, size_t size);
  void close();

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace poolshim::elf
