// Reader: symbol tables (dynamic and .symtab), symbol hash tables and dynamic relocations.
#include <elf.h>

#include <cstring>

#include "elf/reader.h"

namespace poolshim::elf {
namespace {

// A symbol count beyond this is a corrupt table (libtorch_cpu.so has ~200k dynamic symbols).
constexpr uint64_t kMaxSymbols = 1u << 24;

uint32_t gnu_hash_of(const char* s) {
  uint32_t h = 5381;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s); *p; ++p) h = h * 33 + *p;
  return h;
}

uint32_t sysv_hash_of(const char* s) {
  uint32_t h = 0;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s); *p; ++p) {
    h = (h << 4) + *p;
    uint32_t g = h & 0xf0000000u;
    if (g != 0) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

}  // namespace

const char* Reader::str_at(const Strtab& t, uint64_t off) const {
  if (t.p == nullptr || off >= t.size) return nullptr;
  const void* end = memchr(t.p + off, 0, t.size - off);
  return end == nullptr ? nullptr : reinterpret_cast<const char*>(t.p + off);
}

bool Reader::sym_at(const SymTable& t, size_t count, size_t i, Symbol* out) const {
  if (i >= count || t.p == nullptr) return false;
  Elf64_Sym s = load<Elf64_Sym>(t.p + i * sizeof(Elf64_Sym));
  out->name = s.st_name == 0 ? "" : str_at(t.str, s.st_name);
  out->value = s.st_value;
  out->size = s.st_size;
  out->shndx = s.st_shndx;
  out->type = ELF64_ST_TYPE(s.st_info);
  out->bind = ELF64_ST_BIND(s.st_info);
  out->visibility = ELF64_ST_VISIBILITY(s.st_other);
  return true;
}

bool Reader::dynsym(size_t i, Symbol* out) const { return sym_at(dynsym_, dynsym_count_, i, out); }
bool Reader::symtab(size_t i, Symbol* out) const { return sym_at(symtab_, symtab_count_, i, out); }

// The dynamic symbol table has no size of its own: the count comes from DT_HASH (nchain) or
// from walking DT_GNU_HASH to the end of the longest chain (what glibc's dladdr does).
void Reader::read_dynsym(uint64_t symtab, uint64_t strtab, uint64_t strsz, uint64_t hash,
                         uint64_t gnu_hash) {
  if (strtab != 0) {
    uint64_t at = img_.link_vaddr(strtab);
    uint64_t extent = img_.extent_at_vaddr(at);
    uint64_t size = strsz != 0 && strsz < extent ? strsz : extent;
    if (strsz > extent) problems_ |= kProblemDynstr;
    dynsym_.str.p = size > 0 ? img_.at_vaddr(at, size) : nullptr;
    dynsym_.str.size = dynsym_.str.p != nullptr ? size : 0;
  }
  if (dynsym_.str.p == nullptr && (strtab != 0 || symtab != 0)) problems_ |= kProblemDynstr;
  if (symtab == 0) return;

  uint64_t at = img_.link_vaddr(symtab);
  uint64_t count = 0;
  bool counted = false;
  if (hash != 0) {
    uint64_t h = img_.link_vaddr(hash);
    if (const uint8_t* p = img_.at_vaddr(h, 8)) {
      sysv_hash_ = p;
      sysv_hash_extent_ = img_.extent_at_vaddr(h);
      count = load<uint32_t>(p + 4);  // nchain == number of symbols
      counted = true;
    }
  }
  if (gnu_hash != 0) {
    size_t n = count_from_gnu_hash(img_.link_vaddr(gnu_hash));
    if (!counted && gnu_hash_ != nullptr) {
      count = n;
      counted = true;
    }
  }
  if (!counted) {
    problems_ |= kProblemHash;  // files may still find the count in the section headers
    return;
  }
  uint64_t fits = img_.extent_at_vaddr(at) / sizeof(Elf64_Sym);
  if (count > fits || count > kMaxSymbols) {
    problems_ |= kProblemDynsym;
    if (count > fits) count = fits;
    if (count > kMaxSymbols) count = kMaxSymbols;
  }
  dynsym_.p = count > 0 ? img_.at_vaddr(at, count * sizeof(Elf64_Sym)) : nullptr;
  dynsym_count_ = dynsym_.p != nullptr ? static_cast<size_t>(count) : 0;
}

// DT_GNU_HASH: {nbuckets, symoffset, bloom_size, bloom_shift}, bloom[bloom_size] (64-bit words),
// buckets[nbuckets], chain[] (one per symbol from symoffset; bit 0 ends a chain).
size_t Reader::count_from_gnu_hash(uint64_t at) {
  const uint8_t* hdr = img_.at_vaddr(at, 16);
  if (hdr == nullptr) return 0;
  uint64_t extent = img_.extent_at_vaddr(at);
  uint32_t nbuckets = load<uint32_t>(hdr);
  uint32_t symoffset = load<uint32_t>(hdr + 4);
  uint32_t bloom_size = load<uint32_t>(hdr + 8);
  uint64_t chain_start = 16 + uint64_t{bloom_size} * 8 + uint64_t{nbuckets} * 4;
  if (chain_start > extent) {
    problems_ |= kProblemHash;
    return 0;
  }
  const uint8_t* buckets = hdr + 16 + uint64_t{bloom_size} * 8;
  uint32_t max_index = 0;
  for (uint32_t b = 0; b < nbuckets; ++b) {
    uint32_t v = load<uint32_t>(buckets + uint64_t{b} * 4);
    if (v > max_index) max_index = v;
  }
  gnu_hash_ = hdr;
  gnu_hash_extent_ = extent;
  if (max_index < symoffset) return symoffset;
  // Walk the last chain to its end. Each step is bounds-checked, so the loop ends with the
  // table even when no terminating bit exists.
  for (uint64_t i = max_index;; ++i) {
    uint64_t pos = chain_start + (i - symoffset) * 4;
    if (pos + 4 > extent || i >= kMaxSymbols) {
      problems_ |= kProblemHash;
      return static_cast<size_t>(i);
    }
    if (load<uint32_t>(hdr + pos) & 1u) return static_cast<size_t>(i + 1);
  }
}

size_t Reader::gnu_lookup(const char* name, Symbol* out) const {
  uint32_t nbuckets = load<uint32_t>(gnu_hash_);
  uint32_t symoffset = load<uint32_t>(gnu_hash_ + 4);
  uint32_t bloom_size = load<uint32_t>(gnu_hash_ + 8);
  uint32_t shift = load<uint32_t>(gnu_hash_ + 12);
  if (nbuckets == 0) return 0;
  uint32_t h = gnu_hash_of(name);
  if (bloom_size != 0) {
    uint64_t word = load<uint64_t>(gnu_hash_ + 16 + uint64_t{(h / 64) % bloom_size} * 8);
    uint64_t mask = (uint64_t{1} << (h % 64)) | (uint64_t{1} << ((h >> (shift % 32)) % 64));
    if ((word & mask) != mask) return 0;
  }
  uint64_t buckets = 16 + uint64_t{bloom_size} * 8;
  uint64_t chain_start = buckets + uint64_t{nbuckets} * 4;
  uint32_t i = load<uint32_t>(gnu_hash_ + buckets + uint64_t{h % nbuckets} * 4);
  if (i < symoffset) return 0;
  for (; i < dynsym_count_; ++i) {
    uint64_t pos = chain_start + uint64_t{i - symoffset} * 4;
    if (pos + 4 > gnu_hash_extent_) return 0;
    uint32_t c = load<uint32_t>(gnu_hash_ + pos);
    if ((c | 1u) == (h | 1u) && dynsym(i, out) && out->name != nullptr && out->defined() &&
        strcmp(out->name, name) == 0)
      return i;
    if (c & 1u) return 0;
  }
  return 0;
}

// DT_HASH: {nbucket, nchain}, bucket[nbucket], chain[nchain]. A chain could loop in a hostile
// file, so at most nchain steps are taken.
size_t Reader::sysv_lookup(const char* name, Symbol* out) const {
  uint32_t nbucket = load<uint32_t>(sysv_hash_);
  uint32_t nchain = load<uint32_t>(sysv_hash_ + 4);
  if (nbucket == 0 || 8 + (uint64_t{nbucket} + nchain) * 4 > sysv_hash_extent_) return 0;
  const uint8_t* bucket = sysv_hash_ + 8;
  const uint8_t* chain = bucket + uint64_t{nbucket} * 4;
  uint32_t i = load<uint32_t>(bucket + uint64_t{sysv_hash_of(name) % nbucket} * 4);
  for (uint32_t steps = 0; i != 0 && i < nchain && steps < nchain; ++steps) {
    if (dynsym(i, out) && out->name != nullptr && out->defined() && strcmp(out->name, name) == 0)
      return i;
    i = load<uint32_t>(chain + uint64_t{i} * 4);
  }
  return 0;
}

size_t Reader::find_dynsym(const char* name, Symbol* out) const {
  Symbol tmp;
  if (out == nullptr) out = &tmp;
  if (name == nullptr || dynsym_count_ == 0) return 0;
  if (gnu_hash_ != nullptr) return gnu_lookup(name, out);
  if (sysv_hash_ != nullptr) return sysv_lookup(name, out);
  for (size_t i = 1; i < dynsym_count_; ++i)
    if (dynsym(i, out) && out->name != nullptr && out->defined() && strcmp(out->name, name) == 0)
      return i;
  return 0;
}

void Reader::add_rel_table(uint64_t addr, uint64_t size, uint64_t entsize, bool rela) {
  if (addr == 0 || size == 0) return;
  uint64_t want = rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
  if (entsize == 0) entsize = want;
  if (entsize < want || entsize > 256) {
    problems_ |= kProblemRelocs;
    return;
  }
  uint64_t at = img_.link_vaddr(addr);
  uint64_t extent = img_.extent_at_vaddr(at);
  if (size > extent) {
    problems_ |= kProblemRelocs;
    size = extent;
  }
  uint64_t count = size / entsize;
  const uint8_t* p = count > 0 ? img_.at_vaddr(at, count * entsize) : nullptr;
  if (p == nullptr || nrels_ >= 3) return;
  rels_[nrels_++] = RelTable{p, static_cast<size_t>(count), static_cast<size_t>(entsize), rela};
}

void Reader::read_relocs(uint64_t rela, uint64_t relasz, uint64_t relaent, uint64_t rel,
                         uint64_t relsz, uint64_t relent, uint64_t jmprel, uint64_t pltrelsz,
                         uint64_t pltrel) {
  add_rel_table(rela, relasz, relaent, true);
  add_rel_table(rel, relsz, relent, false);
  // DT_PLTREL says which form the PLT table uses; x86_64 and aarch64 always use RELA.
  add_rel_table(jmprel, pltrelsz, 0, pltrel != DT_REL);
}

size_t Reader::reloc_count() const {
  size_t n = 0;
  for (size_t t = 0; t < nrels_; ++t) n += rels_[t].count;
  return n;
}

bool Reader::reloc(size_t i, Reloc* out) const {
  for (size_t t = 0; t < nrels_; ++t) {
    const RelTable& r = rels_[t];
    if (i >= r.count) {
      i -= r.count;
      continue;
    }
    const uint8_t* p = r.p + i * r.entsize;
    uint64_t info = load<uint64_t>(p + 8);  // r_info follows r_offset in both forms
    out->offset = load<uint64_t>(p);
    out->type = static_cast<uint32_t>(ELF64_R_TYPE(info));
    out->sym = static_cast<uint32_t>(ELF64_R_SYM(info));
    out->cls = classify(out->type);
    return true;
  }
  return false;
}

RelocClass Reader::classify(uint32_t type) const {
  if (machine_ == EM_X86_64) {
    switch (type) {
      case R_X86_64_JUMP_SLOT: return RelocClass::jump_slot;
      case R_X86_64_GLOB_DAT: return RelocClass::glob_dat;
      case R_X86_64_64: return RelocClass::abs64;
      case R_X86_64_COPY: return RelocClass::copy;
      case R_X86_64_DTPMOD64: return RelocClass::tls_module;
      case R_X86_64_DTPOFF64: return RelocClass::tls_offset;
      case R_X86_64_TPOFF64: return RelocClass::tls_tpoff;
      case R_X86_64_TLSDESC: return RelocClass::tls_desc;
      default: return RelocClass::other;
    }
  }
  if (machine_ == EM_AARCH64) {
    switch (type) {
      case R_AARCH64_JUMP_SLOT: return RelocClass::jump_slot;
      case R_AARCH64_GLOB_DAT: return RelocClass::glob_dat;
      case R_AARCH64_ABS64: return RelocClass::abs64;
      case R_AARCH64_COPY: return RelocClass::copy;
      case R_AARCH64_TLS_DTPMOD: return RelocClass::tls_module;
      case R_AARCH64_TLS_DTPREL: return RelocClass::tls_offset;
      case R_AARCH64_TLS_TPREL: return RelocClass::tls_tpoff;
      case R_AARCH64_TLSDESC: return RelocClass::tls_desc;
      default: return RelocClass::other;
    }
  }
  return RelocClass::other;
}

// Section headers (files only): the static symbol table .symtab, and the dynamic symbol count
// when the dynamic section did not give one.
void Reader::read_sections() {
  const uint8_t* eh = img_.at_offset(0, sizeof(Elf64_Ehdr));
  if (eh == nullptr) return;
  Elf64_Ehdr h = load<Elf64_Ehdr>(eh);
  if (h.e_shoff == 0 || h.e_shnum == 0)
    return;  // stripped of section headers (or extended numbering)
  if (h.e_shentsize < sizeof(Elf64_Shdr)) {
    problems_ |= kProblemSectionHeaders;
    return;
  }
  const uint8_t* sh = img_.at_offset(h.e_shoff, uint64_t{h.e_shnum} * h.e_shentsize);
  if (sh == nullptr) {
    problems_ |= kProblemSectionHeaders;
    return;
  }
  auto section = [&](size_t i) { return load<Elf64_Shdr>(sh + i * h.e_shentsize); };
  for (size_t i = 0; i < h.e_shnum; ++i) {
    Elf64_Shdr s = section(i);
    bool is_symtab = s.sh_type == SHT_SYMTAB && symtab_.p == nullptr;
    bool is_dynsym = s.sh_type == SHT_DYNSYM && dynsym_count_ == 0;
    if (!is_symtab && !is_dynsym) continue;
    SymTable t;
    uint64_t size = s.sh_size;
    uint64_t extent = img_.extent_at_offset(s.sh_offset);
    bool cut = size > extent || (s.sh_entsize != 0 && s.sh_entsize != sizeof(Elf64_Sym)) ||
               s.sh_link >= h.e_shnum;
    if (size > extent) size = extent;
    uint64_t count = size / sizeof(Elf64_Sym);
    if (count > kMaxSymbols) count = kMaxSymbols, cut = true;
    t.p = count > 0 ? img_.at_offset(s.sh_offset, count * sizeof(Elf64_Sym)) : nullptr;
    if (s.sh_link < h.e_shnum) {
      Elf64_Shdr str = section(s.sh_link);
      uint64_t str_size = str.sh_size;
      uint64_t str_extent = img_.extent_at_offset(str.sh_offset);
      if (str_size > str_extent) str_size = str_extent, cut = true;
      t.str.p = str.sh_type == SHT_STRTAB && str_size > 0 ? img_.at_offset(str.sh_offset, str_size)
                                                          : nullptr;
      t.str.size = t.str.p != nullptr ? str_size : 0;
    }
    if (t.str.p == nullptr) cut = true;
    if (is_symtab) {
      if (cut) problems_ |= kProblemSymtab;
      symtab_ = t;
      symtab_count_ = t.p != nullptr ? static_cast<size_t>(count) : 0;
    } else {
      if (cut) problems_ |= kProblemDynsym;
      if (t.p != nullptr) problems_ &= ~kProblemHash;  // the section gave the count
      dynsym_.p = t.p;
      if (dynsym_.str.p == nullptr) dynsym_.str = t.str;
      dynsym_count_ = t.p != nullptr ? static_cast<size_t>(count) : 0;
    }
  }
}

}  // namespace poolshim::elf
