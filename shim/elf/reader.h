// One ELF reader for both an ELF file image and a module loaded in this process.
//
// It reads what interposition depends on: the dynamic symbols (binding, visibility, section),
// .symtab when a file has one, the dynamic relocations by symbol name, DT_FLAGS / DT_FLAGS_1 /
// DT_SYMBOLIC, DT_SONAME, the file type and PT_INTERP. ELF64 little-endian on x86_64
// and aarch64 only; anything else is rejected with a problem bit that says why.
//
// Nothing is copied or allocated: accessors hand out pointers into the image (valid while the
// image is), symbol names are checked to be NUL-terminated inside their string table, and every
// table is clamped to the bytes that really exist. What could not be read is recorded in
// problems() and the reader carries on with the rest. No exceptions, no stdio.
#pragma once
#include <link.h>

#include <cstddef>
#include <cstdint>

#include "elf/image.h"

namespace poolshim::elf {

// Bits of Reader::problems(): what could not be read. describe_problems() names them.
enum Problem : uint32_t {
  kProblemNotElf = 1u << 0,           // no ELF magic
  kProblemClass = 1u << 1,            // 32-bit ELF
  kProblemByteOrder = 1u << 2,        // big-endian ELF
  kProblemMachine = 1u << 3,          // not x86_64 / aarch64
  kProblemHeader = 1u << 4,           // ELF header truncated or inconsistent
  kProblemProgramHeaders = 1u << 5,   // program headers out of bounds
  kProblemSegments = 1u << 6,         // a PT_LOAD segment unusable (overflow, too many)
  kProblemDynamic = 1u << 7,          // PT_DYNAMIC out of bounds
  kProblemDynsym = 1u << 8,           // dynamic symbol table unreadable or cut short
  kProblemDynstr = 1u << 9,           // dynamic string table unreadable
  kProblemHash = 1u << 10,            // no readable DT_GNU_HASH / DT_HASH to count symbols
  kProblemRelocs = 1u << 11,          // a relocation table out of bounds
  kProblemSectionHeaders = 1u << 12,  // section headers out of bounds
  kProblemSymtab = 1u << 13,          // .symtab / its string table unreadable or cut short
  kProblemNames = 1u << 14,           // some symbol name points outside its string table
  kProblemInterp = 1u << 15,          // PT_INTERP unreadable
};
// "what; what; ..." for every bit in mask, written into buf (always NUL-terminated).
const char* describe_problems(uint32_t mask, char* buf, size_t cap);

enum class Kind : uint8_t {
  unknown,
  relocatable,        // ET_REL (an object file): not a module
  shared_object,      // ET_DYN library
  executable,         // ET_EXEC or PIE with a dynamic linker
  static_executable,  // no dynamic linker (ET_EXEC without PT_INTERP, or static-pie)
  other,              // core dumps and the like
};
const char* kind_text(Kind k);

struct Symbol {
  const char* name = nullptr;  // nullptr when the name is out of bounds
  uint64_t value = 0;          // st_value (a link-time virtual address for defined symbols)
  uint64_t size = 0;
  uint16_t shndx = 0;      // SHN_UNDEF for an undefined reference
  uint8_t type = 0;        // STT_*
  uint8_t bind = 0;        // STB_*
  uint8_t visibility = 0;  // STV_*
  bool defined() const { return shndx != 0; }
};

// What a dynamic relocation does, independent of the machine's numbering.
enum class RelocClass : uint8_t {
  other,       // RELATIVE, IRELATIVE, ... (normally no symbol)
  jump_slot,   // PLT entry: a call through the dynamic linker
  glob_dat,    // GOT entry: an address taken or a call via -fno-plt
  abs64,       // a 64-bit absolute address (data pointers, vtables)
  copy,        // COPY (executables)
  tls_module,  // DTPMOD64
  tls_offset,  // DTPOFF64 / DTPREL64
  tls_tpoff,   // TPOFF64 / TPREL64
  tls_desc,    // TLSDESC
};

struct Reloc {
  uint64_t offset = 0;  // r_offset
  uint32_t type = 0;    // machine relocation type
  uint32_t sym = 0;     // symbol index in the dynamic symbol table; 0 = none
  RelocClass cls = RelocClass::other;
};

class Reader {
 public:
  // A whole ELF file image in memory. Returns ok().
  bool open_file(const void* data, size_t size);
  // A module loaded in this process, as dl_iterate_phdr describes it. Returns ok().
  bool open_loaded(uintptr_t bias, const ElfW(Phdr) * phdr, size_t phnum);

  // True when the header and program headers were understood (other parts may still have
  // problems). False for non-ELF input and unsupported classes, byte orders and machines.
  bool ok() const { return ok_; }
  uint32_t problems() const { return problems_; }

  uint16_t machine() const { return machine_; }  // EM_*, 0 when unknown (loaded, no header)
  Kind kind() const;

  // -Bsymbolic: DF_SYMBOLIC in DT_FLAGS or the older DT_SYMBOLIC entry.
  bool symbolic() const;
  const char* soname() const;  // nullptr when absent

  size_t dynsym_count() const { return dynsym_count_; }
  bool dynsym(size_t i, Symbol* out) const;
  // Finds a dynamic symbol by name through DT_GNU_HASH or DT_HASH (linear scan when neither
  // is usable). Returns its index, or 0 when not found.
  size_t find_dynsym(const char* name, Symbol* out) const;

  bool has_symtab() const { return symtab_count_ > 0; }
  size_t symtab_count() const { return symtab_count_; }
  bool symtab(size_t i, Symbol* out) const;

  // All dynamic relocations: DT_RELA, DT_REL and DT_JMPREL tables, in that order.
  size_t reloc_count() const;
  bool reloc(size_t i, Reloc* out) const;

  const Image& image() const { return img_; }

 private:
  struct Strtab {
    const uint8_t* p = nullptr;
    uint64_t size = 0;
  };
  struct SymTable {
    const uint8_t* p = nullptr;
    Strtab str;
  };
  struct RelTable {
    const uint8_t* p = nullptr;
    size_t count = 0;
    size_t entsize = 0;
    bool rela = true;
  };

  void reset();
  bool read_header();
  bool read_program_headers(const uint8_t* ph, size_t phnum, size_t phentsize);
  void read_dynamic();
  void read_dynsym(uint64_t symtab, uint64_t strtab, uint64_t strsz, uint64_t hash,
                   uint64_t gnu_hash);
  size_t count_from_gnu_hash(uint64_t gnu_hash);
  void read_relocs(uint64_t rela, uint64_t relasz, uint64_t relaent, uint64_t rel, uint64_t relsz,
                   uint64_t relent, uint64_t jmprel, uint64_t pltrelsz, uint64_t pltrel);
  void add_rel_table(uint64_t addr, uint64_t size, uint64_t entsize, bool rela);
  void read_sections();
  bool sym_at(const SymTable& t, size_t count, size_t i, Symbol* out) const;
  const char* str_at(const Strtab& t, uint64_t off) const;
  size_t gnu_lookup(const char* name, Symbol* out) const;
  size_t sysv_lookup(const char* name, Symbol* out) const;
  RelocClass classify(uint32_t type) const;

  Image img_;
  bool ok_ = false;
  uint32_t problems_ = 0;
  uint16_t machine_ = 0;
  uint16_t elf_type_ = 0;
  bool has_interp_ = false;
  const uint8_t* phdrs_ = nullptr;  // program header table (file: in the image; loaded: in memory)
  size_t phnum_ = 0;
  size_t phentsize_ = 0;

  const uint8_t* dyn_ = nullptr;  // the dynamic array
  uint64_t flags_ = 0;
  uint64_t flags_1_ = 0;
  bool dt_symbolic_ = false;
  uint64_t soname_off_ = ~0ull;

  SymTable dynsym_;
  size_t dynsym_count_ = 0;
  const uint8_t* gnu_hash_ = nullptr;  // validated header + bloom + buckets + chain start
  uint64_t gnu_hash_extent_ = 0;
  const uint8_t* sysv_hash_ = nullptr;
  uint64_t sysv_hash_extent_ = 0;

  SymTable symtab_;
  size_t symtab_count_ = 0;

  RelTable rels_[3];
  size_t nrels_ = 0;
};

}  // namespace poolshim::elf
