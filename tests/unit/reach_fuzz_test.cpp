// Fuzz-style robustness: truncated and byte-corrupted copies of real ELF files go through every
// reader accessor, the verdict and the direct-call scan. Nothing may crash, hang or read outside
// the input (each case is an exactly-sized heap copy, so AddressSanitizer sees any overread:
// build with -fsanitize=address to check that too). Deterministic: fixed seeds, ~5000 cases.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "elf/direct_calls.h"
#include "elf/reader.h"
#include "reach/verdict.h"
#include "elf_test_util.h"

using namespace poolshim::elf;
using namespace poolshim::reach;
using namespace poolshim_elf_test;

namespace {

// Touches everything the reader can hand out. Returns a value so nothing is optimised away.
size_t exercise(const std::vector<unsigned char>& bytes) {
  Reader r;
  r.open_file(bytes.data(), bytes.size());
  size_t sum = r.problems() + static_cast<size_t>(r.kind()) + r.symbolic();
  char text[512];
  sum += strlen(describe_problems(r.problems(), text, sizeof text));
  if (const char* s = r.soname()) sum += strlen(s);
  Symbol s;
  for (size_t i = 0; i < r.dynsym_count(); ++i)
    if (r.dynsym(i, &s) && s.name) sum += strlen(s.name) + s.value;
  for (size_t i = 0; i < r.symtab_count(); ++i)
    if (r.symtab(i, &s) && s.name) sum += strlen(s.name);
  Reloc rel;
  for (size_t i = 0; i < r.reloc_count(); ++i)
    if (r.reloc(i, &rel)) sum += rel.sym + static_cast<size_t>(rel.cls);
  const char* names[] = {kGetThreadpool, "pthreadpool_create", "variant_default_work", "",
                         "malloc"};
  for (const char* n : names) sum += r.find_dynsym(n, &s);
  ModuleVerdict v = judge(r, false);
  sum += static_cast<size_t>(v.surface[0].verdict) + strlen(v.surface[0].symbol);
  uint64_t targets[] = {0x1000, 0x2000, 0x2a90};
  sum += find_direct_calls(r, targets, 3).hits;
  return sum;
}

std::vector<std::string> inputs() {
  return {variant("variant_default.so"),
          variant("variant_hidden.so"),
          variant("variant_lto_stripped.so"),
          variant("variant_protected.so"),
          variant("variant_ptp_symbolic_functions.so"),
          std::string(POOLSHIM_BINARY_DIR) + "/bin/variant_exe"};
}

}  // namespace

TEST(ElfFuzz, Truncations) {
  size_t cases = 0;
  for (const std::string& path : inputs()) {
    SCOPED_TRACE(path);
    std::vector<unsigned char> whole = read_file(path);
    ASSERT_GT(whole.size(), 4096u) << "build the fixtures first";
    // Every length through the headers, then evenly spaced cuts through the rest.
    std::vector<size_t> lengths;
    for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
    for (size_t k = 1; k < 120; ++k) lengths.push_back(whole.size() * k / 120);
    for (size_t n : lengths) {
      std::vector<unsigned char> cut(whole.begin(), whole.begin() + static_cast<long>(n));
      exercise(cut);
      ++cases;
    }
  }
  EXPECT_GT(cases, 2000u);
}

TEST(ElfFuzz, ByteCorruptions) {
  size_t cases = 0, rejected = 0;
  unsigned seed = 20240601;
  for (const std::string& path : inputs()) {
    SCOPED_TRACE(path);
    std::vector<unsigned char> whole = read_file(path);
    ASSERT_GT(whole.size(), 4096u);
    std::mt19937 rng(seed++);
    for (int c = 0; c < 450; ++c) {
      std::vector<unsigned char> bytes = whole;
      int flips = 1 + static_cast<int>(rng() % 8);
      for (int f = 0; f < flips; ++f) {
        // Mostly the first pages (headers, dynamic section, hash and symbol tables), sometimes
        // anywhere (section headers at the end, .symtab).
        size_t span = (rng() % 4 != 0) ? std::min<size_t>(bytes.size(), 8192) : bytes.size();
        size_t at = rng() % span;
        static const unsigned char kSpecial[] = {0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe};
        bytes[at] =
            (rng() % 2) ? kSpecial[rng() % sizeof kSpecial] : static_cast<unsigned char>(rng());
      }
      Reader r;
      if (!r.open_file(bytes.data(), bytes.size())) ++rejected;
      exercise(bytes);
      ++cases;
    }
  }
  EXPECT_GE(cases, 2700u);
  EXPECT_GT(rejected, 0u);  // some corruptions hit the identification bytes: a clear refusal
}

// Targeted: counts and offsets set to extremes in the ELF header and the dynamic section.
TEST(ElfFuzz, HostileNumbers) {
  std::vector<unsigned char> whole = read_file(variant("variant_default.so"));
  ASSERT_GT(whole.size(), 4096u);
  Elf64_Ehdr eh;
  memcpy(&eh, whole.data(), sizeof eh);
  const uint64_t kValues[] = {0,
                              1,
                              0x7fffffff,
                              0xffffffffull,
                              0x8000000000000000ull,
                              ~0ull,
                              whole.size(),
                              whole.size() - 1};
  size_t cases = 0;
  // Header fields.
  const size_t kFields[] = {offsetof(Elf64_Ehdr, e_phoff), offsetof(Elf64_Ehdr, e_shoff)};
  for (size_t field : kFields)
    for (uint64_t v : kValues) {
      std::vector<unsigned char> b = whole;
      memcpy(b.data() + field, &v, 8);
      exercise(b);
      ++cases;
    }
  const size_t kShort[] = {offsetof(Elf64_Ehdr, e_phnum), offsetof(Elf64_Ehdr, e_phentsize),
                           offsetof(Elf64_Ehdr, e_shnum), offsetof(Elf64_Ehdr, e_shentsize),
                           offsetof(Elf64_Ehdr, e_shstrndx)};
  for (size_t field : kShort)
    for (uint16_t v : {uint16_t{0}, uint16_t{1}, uint16_t{0x7fff}, uint16_t{0xffff}}) {
      std::vector<unsigned char> b = whole;
      memcpy(b.data() + field, &v, 2);
      exercise(b);
      ++cases;
    }
  // Every value of every dynamic entry, and every program header's offsets and sizes.
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    memcpy(&ph, whole.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    for (size_t field : {offsetof(Elf64_Phdr, p_offset), offsetof(Elf64_Phdr, p_vaddr),
                         offsetof(Elf64_Phdr, p_filesz), offsetof(Elf64_Phdr, p_memsz)})
      for (uint64_t v : kValues) {
        std::vector<unsigned char> b = whole;
        memcpy(b.data() + eh.e_phoff + i * sizeof ph + field, &v, 8);
        exercise(b);
        ++cases;
      }
    if (ph.p_type != PT_DYNAMIC) continue;
    for (size_t d = 0; d < ph.p_filesz / sizeof(Elf64_Dyn); ++d)
      for (uint64_t v : kValues) {
        std::vector<unsigned char> b = whole;
        memcpy(b.data() + ph.p_offset + d * sizeof(Elf64_Dyn) + 8, &v, 8);
        exercise(b);
        ++cases;
      }
  }
  EXPECT_GT(cases, 300u);
}
