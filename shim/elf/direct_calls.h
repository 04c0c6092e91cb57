// Evidence of local binding: direct call / jump instructions whose target is the start of one of
// a module's own exported functions. A call that goes through the dynamic linker targets a PLT
// stub; a direct call to the function itself was bound at link time (-Bsymbolic-functions,
// protected, LTO with -fno-semantic-interposition) and no preload can intercept it.
//
// Decoded: x86_64 `call rel32` (E8) and `jmp rel32` (E9), scanned at every byte offset;
// aarch64 `bl` / `b` (imm26), at every 4-byte word. Scanning every byte of x86 code can meet an
// E8 inside another instruction, but its 32-bit displacement must then also land exactly on one
// of a few dozen function starts: rare enough for evidence, not for proof.
#pragma once
#include <cstddef>
#include <cstdint>

#include "elf/reader.h"

namespace poolshim::elf {

struct DirectCalls {
  bool code_readable = false;  // some executable segment could be read
  size_t hits = 0;             // direct calls/jumps found
  size_t first_target = 0;     // index into targets of the first hit (valid when hits > 0)
};

// Scans r's executable segments for direct calls to any of targets[0..n) (link-time virtual
// addresses, any order). Stops at the first hit. Cost: one pass over the code (only done for
// modules whose copy no relocation names).
DirectCalls find_direct_calls(const Reader& r, const uint64_t* targets, size_t n);

}  // namespace poolshim::elf
