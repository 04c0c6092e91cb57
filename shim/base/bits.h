// Bits set in a word, without a library call: x86-64's baseline has no popcnt instruction, so
// __builtin_popcount compiles to a call of libgcc's __popcountdi2 (a table walk) unless the build
// targets newer CPUs, which a library loaded into any process must not. Five arithmetic steps
// instead; the gangs' seat count asks this on every look of a waiting caller.
#pragma once
#include <cstdint>

namespace poolshim::base {

constexpr unsigned count_bits(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
}
static_assert(count_bits(0) == 0 && count_bits(~uint64_t{0}) == 64 && count_bits(0x8001) == 2,
              "count_bits");

}  // namespace poolshim::base
