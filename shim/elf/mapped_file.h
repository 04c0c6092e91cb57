// A whole file mapped read-only (for Reader::open_file). No stdio, no heap.
#pragma once
#include <cstddef>

namespace poolshim::elf {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile() { close(); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps a regular file. Returns false (errno set) when it cannot be opened, is not a regular
  // file, is empty or cannot be mapped.
  bool open(const char* path);
  void close();

  const void* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace poolshim::elf
