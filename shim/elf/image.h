// A bounds-checked view of one ELF object's bytes, for the two places ELF comes from:
//
//  - a file image: the whole file is in memory (mmap'ed read-only, or an archive member read
//    into a buffer). File offsets address it directly; a virtual address is translated through
//    the PT_LOAD segments (p_vaddr -> p_offset, at most p_filesz bytes, clamped to the file).
//  - a module loaded in this process: the dynamic linker mapped each PT_LOAD segment at
//    bias + p_vaddr for p_memsz bytes. There is no "file"; only virtual addresses exist, and
//    only inside readable segments (an execute-only segment would fault if read).
//
// Every accessor returns nullptr (or 0) instead of touching a byte outside the view, so a
// truncated or hostile file can make the reader give up, never crash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace poolshim::elf {

class Image {
 public:
  static constexpr size_t kMaxSegments = 32;

  // A file image of `size` bytes at `data` (not owned; must outlive the Image).
  void init_file(const void* data, size_t size);
  // A loaded module whose segments start at bias + p_vaddr.
  void init_loaded(uintptr_t bias);

  // Registers a PT_LOAD segment. For a file: [vaddr, vaddr + size) lives at file offset
  // `offset` (size is clamped to what the file holds). For a loaded module `offset` is unused.
  // code: the segment is executable (PF_X). Returns false when the table is full or the numbers
  // overflow.
  bool add_segment(uint64_t vaddr, uint64_t size, uint64_t offset, bool code = false);

  // The readable executable segments, for scanning instructions: i-th one's link-time vaddr,
  // its bytes and their count. False when i is past the last.
  bool code_segment(size_t i, uint64_t* vaddr, const uint8_t** bytes, uint64_t* size) const;

  bool is_file() const { return file_ != nullptr; }
  uintptr_t bias() const { return bias_; }

  // Pointer to [off, off + len) of a file image, or nullptr (also for loaded modules).
  const uint8_t* at_offset(uint64_t off, uint64_t len) const;
  // Pointer to [vaddr, vaddr + len) when that range lies inside ONE segment, else nullptr.
  const uint8_t* at_vaddr(uint64_t vaddr, uint64_t len) const;
  // Bytes readable from vaddr to the end of its segment (0 when vaddr is in none).
  uint64_t extent_at_vaddr(uint64_t vaddr) const;
  // Bytes readable from a file offset to the end of the file (0 for loaded modules).
  uint64_t extent_at_offset(uint64_t off) const {
    return is_file() && off < file_size_ ? file_size_ - off : 0;
  }

  // Dynamic-section pointers (DT_SYMTAB, DT_RELA, ...) hold link-time virtual addresses in a
  // file. In a loaded module glibc rewrites them in place to absolute addresses (on x86_64 and
  // aarch64; not on arches with a read-only dynamic section, and never for the vDSO). This turns
  // either form back into a link-time virtual address: a value that lands inside a segment once
  // the bias is removed was relocated. With bias 0 (a non-PIE executable) both forms agree.
  uint64_t link_vaddr(uint64_t d_ptr) const;

 private:
  struct Segment {
    uint64_t vaddr;
    uint64_t size;
    uint64_t offset;
    bool code;
  };
  const Segment* find(uint64_t vaddr) const;

  const uint8_t* file_ = nullptr;
  size_t file_size_ = 0;
  uintptr_t bias_ = 0;
  Segment segs_[kMaxSegments];
  size_t nsegs_ = 0;
};

// Copies a T out of possibly unaligned bytes (file images can put tables at odd offsets).
template <class T>
inline T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace poolshim::elf
