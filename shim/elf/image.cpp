// Bounds checks for Image (see image.h). All arithmetic is done in uint64_t with explicit
// overflow checks: every number here may come from a hostile file.
#include "elf/image.h"

namespace poolshim::elf {

void Image::init_file(const void* data, size_t size) {
  file_ = static_cast<const uint8_t*>(data);
  file_size_ = data != nullptr ? size : 0;
  bias_ = 0;
  nsegs_ = 0;
}

void Image::init_loaded(uintptr_t bias) {
  file_ = nullptr;
  file_size_ = 0;
  bias_ = bias;
  nsegs_ = 0;
}

bool Image::add_segment(uint64_t vaddr, uint64_t size, uint64_t offset, bool code) {
  if (nsegs_ >= kMaxSegments) return false;
  if (size == 0) return true;  // nothing readable; not an error
  if (vaddr + size < vaddr) return false;
  if (is_file()) {
    // Only the bytes the file really holds are readable; a truncated file shrinks the segment.
    if (offset >= file_size_) return true;
    uint64_t avail = file_size_ - offset;
    if (size > avail) size = avail;
  } else {
    // The module is mapped at bias + vaddr: that sum must not wrap.
    if (static_cast<uint64_t>(bias_) + vaddr + size < vaddr) return false;
  }
  segs_[nsegs_++] = Segment{vaddr, size, offset, code};
  return true;
}

const Image::Segment* Image::find(uint64_t vaddr) const {
  for (size_t i = 0; i < nsegs_; ++i) {
    const Segment& s = segs_[i];
    if (vaddr >= s.vaddr && vaddr - s.vaddr < s.size) return &s;
  }
  return nullptr;
}

const uint8_t* Image::at_offset(uint64_t off, uint64_t len) const {
  if (!is_file() || off > file_size_ || len > file_size_ - off) return nullptr;
  return file_ + off;
}

const uint8_t* Image::at_vaddr(uint64_t vaddr, uint64_t len) const {
  const Segment* s = find(vaddr);
  if (s == nullptr) return nullptr;
  uint64_t rel = vaddr - s->vaddr;
  if (len > s->size - rel) return nullptr;
  if (is_file()) return file_ + s->offset + rel;  // add_segment clamped offset + size to the file
  return reinterpret_cast<const uint8_t*>(static_cast<uintptr_t>(bias_ + vaddr));
}

uint64_t Image::extent_at_vaddr(uint64_t vaddr) const {
  const Segment* s = find(vaddr);
  return s == nullptr ? 0 : s->size - (vaddr - s->vaddr);
}

bool Image::code_segment(size_t i, uint64_t* vaddr, const uint8_t** bytes, uint64_t* size) const {
  for (size_t k = 0; k < nsegs_; ++k) {
    if (!segs_[k].code || i-- != 0) continue;
    *vaddr = segs_[k].vaddr;
    *size = segs_[k].size;
    *bytes = at_vaddr(segs_[k].vaddr, segs_[k].size);
    return *bytes != nullptr;
  }
  return false;
}

uint64_t Image::link_vaddr(uint64_t d_ptr) const {
  if (is_file() || bias_ == 0) return d_ptr;
  uint64_t unbiased = d_ptr - bias_;
  if (d_ptr >= bias_ && find(unbiased) != nullptr) return unbiased;
  return d_ptr;
}

}  // namespace poolshim::elf
