// find_direct_calls(): a linear scan of the executable segments (see direct_calls.h).
#include "elf/direct_calls.h"

#include <elf.h>

namespace poolshim::elf {
namespace {

constexpr size_t kMaxTargets = 256;

// targets sorted ascending, for a binary search per candidate instruction.
bool lookup(const uint64_t* sorted, size_t n, uint64_t t, size_t* at) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < n && sorted[lo] == t) {
    *at = lo;
    return true;
  }
  return false;
}

}  // namespace

DirectCalls find_direct_calls(const Reader& r, const uint64_t* targets, size_t n) {
  DirectCalls out;
  if (n > kMaxTargets) n = kMaxTargets;
  // Sorted copy, remembering each entry's original index (insertion sort: n is small).
  uint64_t sorted[kMaxTargets];
  uint16_t origin[kMaxTargets];
  for (size_t i = 0; i < n; ++i) {
    size_t j = i;
    while (j > 0 && sorted[j - 1] > targets[i]) {
      sorted[j] = sorted[j - 1];
      origin[j] = origin[j - 1];
      --j;
    }
    sorted[j] = targets[i];
    origin[j] = static_cast<uint16_t>(i);
  }
  const bool x86 = r.machine() == EM_X86_64;
  const bool arm = r.machine() == EM_AARCH64;
  uint64_t vaddr = 0, size = 0;
  const uint8_t* code = nullptr;
  for (size_t s = 0; r.image().code_segment(s, &vaddr, &code, &size); ++s) {
    out.code_readable = true;
    size_t at = 0;
    if (x86 && size >= 5) {
      for (uint64_t i = 0; i + 5 <= size; ++i) {
        if (code[i] != 0xE8 && code[i] != 0xE9) continue;
        int32_t rel = load<int32_t>(code + i + 1);
        uint64_t target = vaddr + i + 5 + static_cast<uint64_t>(static_cast<int64_t>(rel));
        if (lookup(sorted, n, target, &at)) {
          out.hits = 1;
          out.first_target = origin[at];
          return out;
        }
      }
    } else if (arm) {
      uint64_t start = (4 - (vaddr & 3)) & 3;  // instructions are 4-byte aligned in vaddr space
      for (uint64_t i = start; i + 4 <= size; i += 4) {
        uint32_t w = load<uint32_t>(code + i);
        uint32_t op = w >> 26;
        if (op != 0x25 && op != 0x05) continue;  // BL, B
        int64_t imm = static_cast<int64_t>(static_cast<int32_t>(w << 6) >> 6) * 4;
        uint64_t target = vaddr + i + static_cast<uint64_t>(imm);
        if (lookup(sorted, n, target, &at)) {
          out.hits = 1;
          out.first_target = origin[at];
          return out;
        }
      }
    }
  }
  return out;
}

}  // namespace poolshim::elf
