// Reader: the ELF header, the program headers and the dynamic section. Symbol tables and
// relocations are in reader_tables.cpp. Every number read from the image is treated as hostile.
#include "elf/reader.h"

#include <elf.h>

#include <cstring>

#include "base/text.h"

namespace poolshim::elf {
namespace {

#if defined(__x86_64__)
constexpr uint16_t kNativeMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kNativeMachine = EM_AARCH64;
#else
constexpr uint16_t kNativeMachine = 0;
#endif

struct ProblemName {
  uint32_t bit;
  const char* text;
};
constexpr ProblemName kProblemTexts[] = {
    {kProblemNotElf, "not an ELF file"},
    {kProblemClass, "32-bit ELF (only ELF64 is read)"},
    {kProblemByteOrder, "big-endian ELF (only little-endian is read)"},
    {kProblemMachine, "unsupported machine (x86_64 and aarch64 are read)"},
    {kProblemHeader, "ELF header truncated or inconsistent"},
    {kProblemProgramHeaders, "program headers out of bounds"},
    {kProblemSegments, "unusable PT_LOAD segment"},
    {kProblemDynamic, "dynamic section out of bounds"},
    {kProblemDynsym, "dynamic symbol table unreadable or cut short"},
    {kProblemDynstr, "dynamic string table unreadable"},
    {kProblemHash, "no usable symbol hash table (symbol count unknown)"},
    {kProblemRelocs, "relocation table out of bounds"},
    {kProblemSectionHeaders, "section headers out of bounds"},
    {kProblemSymtab, "symbol table (.symtab) unreadable or cut short"},
    {kProblemNames, "symbol name outside its string table"},
    {kProblemInterp, "PT_INTERP unreadable"},
};

static_assert(sizeof(void*) == 8, "the ELF reader reads ELF64 modules only");

// The largest table the reader accepts; a count beyond it is a corrupt header, not a module.
constexpr uint64_t kMaxDynamicEntries = 1u << 16;

}  // namespace

const char* describe_problems(uint32_t mask, char* buf, size_t cap) {
  base::Text text(buf, cap);
  for (const ProblemName& p : kProblemTexts) {
    if ((mask & p.bit) == 0) continue;
    text.append(text.size() > 0 ? "; " : "").append(p.text);
  }
  return buf;
}

const char* kind_text(Kind k) {
  switch (k) {
    case Kind::relocatable: return "object file";
    case Kind::shared_object: return "shared object";
    case Kind::executable: return "executable";
    case Kind::static_executable: return "static executable";
    case Kind::other: return "other ELF";
    case Kind::unknown: break;
  }
  return "unknown";
}

void Reader::reset() { *this = Reader(); }

bool Reader::open_file(const void* data, size_t size) {
  reset();
  img_.init_file(data, size);
  if (!read_header()) return false;
  read_dynamic();
  read_sections();
  return ok_;
}

bool Reader::open_loaded(uintptr_t bias, const ElfW(Phdr) * phdr, size_t phnum) {
  reset();
  img_.init_loaded(bias);
  machine_ = kNativeMachine;
  if (phdr == nullptr || phnum == 0) {
    problems_ |= kProblemProgramHeaders;
    return false;
  }
  if (!read_program_headers(reinterpret_cast<const uint8_t*>(phdr), phnum, sizeof(ElfW(Phdr))))
    return false;
  // The ELF header is mapped when the first PT_LOAD covers file offset 0 (always, for the
  // GNU and LLVM linkers); it tells the file type. Without it the type stays unknown.
  for (size_t i = 0; i < phnum; ++i) {
    if (phdr[i].p_type != PT_LOAD || phdr[i].p_offset != 0) continue;
    if (const uint8_t* eh = img_.at_vaddr(phdr[i].p_vaddr, sizeof(Elf64_Ehdr))) {
      if (memcmp(eh, ELFMAG, SELFMAG) == 0) {
        Elf64_Ehdr h = load<Elf64_Ehdr>(eh);
        elf_type_ = h.e_type;
        if (h.e_machine != 0) machine_ = h.e_machine;
      }
    }
    break;
  }
  ok_ = true;
  read_dynamic();
  return ok_;
}

bool Reader::read_header() {
  const uint8_t* id = img_.at_offset(0, EI_NIDENT);
  if (id == nullptr || memcmp(id, ELFMAG, SELFMAG) != 0) {
    problems_ |= kProblemNotElf;
    return false;
  }
  if (id[EI_CLASS] != ELFCLASS64) {
    problems_ |= kProblemClass;
    return false;
  }
  if (id[EI_DATA] != ELFDATA2LSB) {
    problems_ |= kProblemByteOrder;
    return false;
  }
  const uint8_t* eh = img_.at_offset(0, sizeof(Elf64_Ehdr));
  if (eh == nullptr) {
    problems_ |= kProblemHeader;
    return false;
  }
  Elf64_Ehdr h = load<Elf64_Ehdr>(eh);
  machine_ = h.e_machine;
  elf_type_ = h.e_type;
  if (h.e_machine != EM_X86_64 && h.e_machine != EM_AARCH64) {
    problems_ |= kProblemMachine;
    return false;
  }
  ok_ = true;
  if (h.e_phnum == 0) return true;  // an object file: no segments, nothing dynamic
  if (h.e_phentsize < sizeof(Elf64_Phdr) || h.e_phnum == PN_XNUM) {
    problems_ |= kProblemHeader;
    return true;
  }
  // e_phnum and e_phentsize are 16-bit: their product cannot overflow.
  uint64_t len = static_cast<uint64_t>(h.e_phnum) * h.e_phentsize;
  const uint8_t* ph = img_.at_offset(h.e_phoff, len);
  if (ph == nullptr) {
    problems_ |= kProblemProgramHeaders;
    return true;
  }
  read_program_headers(ph, h.e_phnum, h.e_phentsize);
  return true;
}

bool Reader::read_program_headers(const uint8_t* ph, size_t phnum, size_t phentsize) {
  phdrs_ = ph;
  phnum_ = phnum;
  phentsize_ = phentsize;
  // Segments first: PT_DYNAMIC and PT_INTERP of a loaded module are found through them.
  for (size_t i = 0; i < phnum; ++i) {
    Elf64_Phdr p = load<Elf64_Phdr>(ph + i * phentsize);
    if (p.p_type != PT_LOAD) continue;
    bool ok;
    if (img_.is_file()) {
      ok = img_.add_segment(p.p_vaddr, p.p_filesz, p.p_offset, (p.p_flags & PF_X) != 0);
    } else {
      // An execute-only segment (PF_X without PF_R) would fault when read: leave it out.
      ok = (p.p_flags & PF_R) == 0 ||
           img_.add_segment(p.p_vaddr, p.p_memsz, 0, (p.p_flags & PF_X) != 0);
    }
    if (!ok) problems_ |= kProblemSegments;
  }
  for (size_t i = 0; i < phnum; ++i) {
    Elf64_Phdr p = load<Elf64_Phdr>(ph + i * phentsize);
    if (p.p_type != PT_INTERP) continue;
    has_interp_ = true;
    const uint8_t* s = img_.is_file() ? img_.at_offset(p.p_offset, p.p_filesz)
                                      : img_.at_vaddr(p.p_vaddr, p.p_memsz);
    if (s == nullptr || p.p_filesz == 0 || memchr(s, 0, p.p_filesz) == nullptr)
      problems_ |= kProblemInterp;
  }
  return true;
}

void Reader::read_dynamic() {
  if (phdrs_ == nullptr) return;
  const uint8_t* dyn = nullptr;
  uint64_t size = 0;
  bool found = false;
  for (size_t i = 0; i < phnum_ && !found; ++i) {
    Elf64_Phdr p = load<Elf64_Phdr>(phdrs_ + i * phentsize_);
    if (p.p_type != PT_DYNAMIC) continue;
    found = true;
    size = p.p_filesz;
    if (img_.is_file()) {
      dyn = img_.at_offset(p.p_offset, size);
      if (dyn == nullptr) {  // truncated file: keep the entries that are there
        size = img_.extent_at_offset(p.p_offset);
        dyn = img_.at_offset(p.p_offset, size);
        problems_ |= kProblemDynamic;
      }
    } else {
      dyn = img_.at_vaddr(p.p_vaddr, size);
    }
  }
  if (!found) return;
  if (dyn == nullptr) {
    problems_ |= kProblemDynamic;
    return;
  }
  size_t n = static_cast<size_t>(size / sizeof(Elf64_Dyn));
  if (n > kMaxDynamicEntries) n = kMaxDynamicEntries;

  uint64_t symtab = 0, strtab = 0, strsz = 0, hash = 0, gnu_hash = 0;
  uint64_t rela = 0, relasz = 0, relaent = 0, rel = 0, relsz = 0, relent = 0;
  uint64_t jmprel = 0, pltrelsz = 0, pltrel = 0;
  size_t count = 0;
  for (; count < n; ++count) {
    Elf64_Dyn d = load<Elf64_Dyn>(dyn + count * sizeof(Elf64_Dyn));
    if (d.d_tag == DT_NULL) break;
    uint64_t v = d.d_un.d_val;
    switch (d.d_tag) {
      case DT_SYMTAB: symtab = v; break;
      case DT_STRTAB: strtab = v; break;
      case DT_STRSZ: strsz = v; break;
      case DT_HASH: hash = v; break;
      case DT_GNU_HASH: gnu_hash = v; break;
      case DT_RELA: rela = v; break;
      case DT_RELASZ: relasz = v; break;
      case DT_RELAENT: relaent = v; break;
      case DT_REL: rel = v; break;
      case DT_RELSZ: relsz = v; break;
      case DT_RELENT: relent = v; break;
      case DT_JMPREL: jmprel = v; break;
      case DT_PLTRELSZ: pltrelsz = v; break;
      case DT_PLTREL: pltrel = v; break;
      case DT_FLAGS: flags_ = v; break;
      case DT_FLAGS_1: flags_1_ = v; break;
      case DT_SYMBOLIC: dt_symbolic_ = true; break;
      case DT_SONAME: soname_off_ = v; break;
      default: break;
    }
  }
  dyn_ = dyn;
  read_dynsym(symtab, strtab, strsz, hash, gnu_hash);
  read_relocs(rela, relasz, relaent, rel, relsz, relent, jmprel, pltrelsz, pltrel);
}

Kind Reader::kind() const {
  switch (elf_type_) {
    case ET_REL: return Kind::relocatable;
    case ET_EXEC:
      return has_interp_ || dyn_ != nullptr ? Kind::executable : Kind::static_executable;
    case ET_DYN:
      // A PIE says so in DT_FLAGS_1 (binutils >= 2.26); an older PIE is recognised by having
      // a dynamic linker and no SONAME (shared libraries such as libc.so.6 may have PT_INTERP).
      if ((flags_1_ & DF_1_PIE) != 0)
        return has_interp_ ? Kind::executable : Kind::static_executable;
      if (has_interp_ && soname() == nullptr) return Kind::executable;
      return Kind::shared_object;
    case ET_CORE: return Kind::other;
    default: return elf_type_ == 0 ? Kind::unknown : Kind::other;
  }
}

bool Reader::symbolic() const { return dt_symbolic_ || (flags_ & DF_SYMBOLIC) != 0; }

const char* Reader::soname() const {
  return soname_off_ == ~0ull ? nullptr : str_at(dynsym_.str, soname_off_);
}

}  // namespace poolshim::elf
