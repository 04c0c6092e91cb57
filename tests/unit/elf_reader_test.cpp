// The ELF reader on real objects: the fixture variants as files, the same modules loaded in this
// process (both views must agree), libc through its hash tables, and rejected inputs.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstring>
#include <string>
#include <vector>

#include "elf/mapped_file.h"
#include "elf/reader.h"
#include "elf_test_util.h"

using namespace poolshim::elf;
using namespace poolshim_elf_test;

namespace {

struct FileReader {
  MappedFile file;
  Reader reader;
  bool open(const std::string& path) {
    return file.open(path.c_str()) && reader.open_file(file.data(), file.size());
  }
};

bool has_reloc(const Reader& r, const char* name, RelocClass cls) {
  Reloc rel;
  Symbol s;
  for (size_t i = 0; i < r.reloc_count(); ++i)
    if (r.reloc(i, &rel) && rel.cls == cls && r.dynsym(rel.sym, &s) && s.name &&
        strcmp(s.name, name) == 0)
      return true;
  return false;
}

// The loaded module whose file name ends with `suffix` (dl_iterate_phdr).
struct Found {
  const char* suffix;
  dl_phdr_info info;
  bool found;
};

int find_cb(dl_phdr_info* info, size_t, void* p) {
  Found* f = static_cast<Found*>(p);
  size_t n = strlen(info->dlpi_name), m = strlen(f->suffix);
  if (n >= m && strcmp(info->dlpi_name + n - m, f->suffix) == 0) {
    f->info = *info;
    f->found = true;
    return 1;
  }
  return 0;
}

bool open_loaded(const char* suffix, Reader* r, uintptr_t* bias = nullptr) {
  Found f{suffix, {}, false};
  dl_iterate_phdr(find_cb, &f);
  if (!f.found) return false;
  if (bias) *bias = f.info.dlpi_addr;
  return r->open_loaded(f.info.dlpi_addr, f.info.dlpi_phdr, f.info.dlpi_phnum);
}

}  // namespace

TEST(ElfReader, ReadsTheDefaultVariantFile) {
  FileReader f;
  ASSERT_TRUE(f.open(variant("variant_default.so")))
      << "build the fixtures first: " << variant("variant_default.so");
  const Reader& r = f.reader;
  EXPECT_EQ(r.problems(), 0u);
  EXPECT_EQ(r.kind(), Kind::shared_object);
  EXPECT_FALSE(r.symbolic());
  EXPECT_TRUE(r.has_symtab());
  EXPECT_GT(r.dynsym_count(), 10u);
  Symbol s;
  ASSERT_NE(r.find_dynsym(kGetThreadpool, &s), 0u);
  EXPECT_TRUE(s.defined());
  EXPECT_EQ(s.type, STT_FUNC);
  EXPECT_EQ(s.bind, STB_GLOBAL);
  EXPECT_EQ(s.visibility, STV_DEFAULT);
  // Its own calls go through the PLT, and the guard flag through TLS relocations
  // (docs/interposition.md).
  EXPECT_TRUE(has_reloc(r, kGetThreadpool, RelocClass::jump_slot));
  EXPECT_TRUE(has_reloc(r, kGuardFlag, RelocClass::tls_module));
  EXPECT_TRUE(has_reloc(r, kGuardFlag, RelocClass::tls_offset));
}

TEST(ElfReader, SeesFlagsVisibilityAndStripping) {
  FileReader sym, prot, hidden, stripped;
  ASSERT_TRUE(sym.open(variant("variant_symbolic.so")));
  EXPECT_TRUE(sym.reader.symbolic());

  ASSERT_TRUE(prot.open(variant("variant_protected.so")));
  Symbol s;
  ASSERT_NE(prot.reader.find_dynsym(kGetThreadpool, &s), 0u);
  EXPECT_EQ(s.visibility, STV_PROTECTED);

  // Hidden: not exported, but .symtab still holds it (LOCAL after the link).
  ASSERT_TRUE(hidden.open(variant("variant_hidden.so")));
  EXPECT_EQ(hidden.reader.find_dynsym(kGetThreadpool, &s), 0u);
  bool in_symtab = false;
  for (size_t i = 0; i < hidden.reader.symtab_count(); ++i)
    if (hidden.reader.symtab(i, &s) && s.name && strcmp(s.name, kGetThreadpool) == 0 &&
        s.bind == STB_LOCAL)
      in_symtab = true;
  EXPECT_TRUE(in_symtab);

  ASSERT_TRUE(stripped.open(variant("variant_hidden_stripped.so")));
  EXPECT_FALSE(stripped.reader.has_symtab());
  EXPECT_EQ(stripped.reader.problems(), 0u);
}

TEST(ElfReader, ReadsTheTestExecutable) {
  FileReader f;
  ASSERT_TRUE(f.open("/proc/self/exe"));
  EXPECT_EQ(f.reader.kind(), Kind::executable);
  EXPECT_EQ(f.reader.problems() & kProblemInterp, 0u);  // its PT_INTERP was read
  EXPECT_GT(f.reader.reloc_count(), 0u);
}

TEST(ElfReader, LoadedModuleAgreesWithItsFile) {
  void* h = dlopen(variant("variant_default.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  FileReader f;
  ASSERT_TRUE(f.open(variant("variant_default.so")));
  Reader mem;
  uintptr_t bias = 0;
  ASSERT_TRUE(open_loaded("/variant_default.so", &mem, &bias));
  EXPECT_EQ(mem.problems(), 0u);
  EXPECT_EQ(mem.kind(), Kind::shared_object);
  EXPECT_FALSE(mem.has_symtab());  // .symtab is never loaded
  EXPECT_EQ(mem.dynsym_count(), f.reader.dynsym_count());
  EXPECT_EQ(mem.reloc_count(), f.reader.reloc_count());
  EXPECT_STREQ(mem.soname(), f.reader.soname());
  // Every dynamic symbol reads the same from memory (relocated d_ptr values) and from the file.
  for (size_t i = 1; i < mem.dynsym_count(); ++i) {
    Symbol a, b;
    ASSERT_TRUE(mem.dynsym(i, &a));
    ASSERT_TRUE(f.reader.dynsym(i, &b));
    ASSERT_STREQ(a.name, b.name);
    EXPECT_EQ(a.value, b.value);
  }
  Symbol s;
  ASSERT_NE(mem.find_dynsym(kGetThreadpool, &s), 0u);
  EXPECT_EQ(reinterpret_cast<void*>(bias + s.value), dlsym(h, kGetThreadpool));
  EXPECT_TRUE(has_reloc(mem, kGetThreadpool, RelocClass::jump_slot));
  dlclose(h);
}

// libc has a large GNU hash table: every defined symbol must be found through it, at its index.
TEST(ElfReader, HashLookupFindsEveryLibcSymbol) {
  Reader r;
  uintptr_t bias = 0;
  ASSERT_TRUE(open_loaded("libc.so.6", &r, &bias));
  ASSERT_GT(r.dynsym_count(), 1000u);
  size_t checked = 0;
  for (size_t i = 1; i < r.dynsym_count(); ++i) {
    Symbol s, found;
    ASSERT_TRUE(r.dynsym(i, &s));
    if (!s.defined() || s.name == nullptr || *s.name == '\0') continue;
    size_t at = r.find_dynsym(s.name, &found);
    ASSERT_NE(at, 0u) << s.name;
    EXPECT_STREQ(found.name, s.name);
    ++checked;
  }
  EXPECT_GT(checked, 1000u);
  Symbol s;
  EXPECT_EQ(r.find_dynsym("no_such_symbol_in_libc_xyz", &s), 0u);
  ASSERT_NE(r.find_dynsym("malloc", &s), 0u);
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(libc, nullptr);
  EXPECT_EQ(reinterpret_cast<void*>(bias + s.value), dlsym(libc, "malloc"));
  dlclose(libc);
}

TEST(ElfReader, RejectsWhatItCannotRead) {
  FileReader base;
  ASSERT_TRUE(base.open(variant("variant_default.so")));
  const unsigned char* data = static_cast<const unsigned char*>(base.file.data());
  std::vector<unsigned char> bytes(data, data + base.file.size());

  auto problems_of = [](std::vector<unsigned char> b) {
    Reader r;
    EXPECT_FALSE(r.open_file(b.data(), b.size()));
    EXPECT_FALSE(r.ok());
    return r.problems();
  };
  auto patched = [&](size_t at, unsigned char v) {
    std::vector<unsigned char> b = bytes;
    b[at] = v;
    return b;
  };
  EXPECT_EQ(problems_of(patched(EI_CLASS, ELFCLASS32)), uint32_t{kProblemClass});
  EXPECT_EQ(problems_of(patched(EI_DATA, ELFDATA2MSB)), uint32_t{kProblemByteOrder});
  EXPECT_EQ(problems_of(patched(offsetof(Elf64_Ehdr, e_machine), EM_PPC64)),
            uint32_t{kProblemMachine});
  EXPECT_EQ(problems_of(patched(0, 'X')), uint32_t{kProblemNotElf});
  EXPECT_EQ(problems_of({}), uint32_t{kProblemNotElf});
  EXPECT_EQ(problems_of(std::vector<unsigned char>(bytes.begin(), bytes.begin() + 40)),
            uint32_t{kProblemHeader});
  char text[256];
  EXPECT_STREQ(describe_problems(kProblemClass, text, sizeof text),
               "32-bit ELF (only ELF64 is read)");
  describe_problems(kProblemClass | kProblemMachine, text, sizeof text);
  EXPECT_NE(strstr(text, "; "), nullptr);
  describe_problems(~0u, text, 8);  // truncated, still terminated
  EXPECT_EQ(strlen(text), 7u);
}

TEST(ElfReader, TruncatedFileKeepsWhatItHas) {
  FileReader base;
  ASSERT_TRUE(base.open(variant("variant_default.so")));
  // Cut inside the section headers: the dynamic part is still there, .symtab is not.
  size_t cut = base.file.size() - 200;
  Reader r;
  ASSERT_TRUE(r.open_file(base.file.data(), cut));
  EXPECT_TRUE(r.problems() & kProblemSectionHeaders);
  EXPECT_FALSE(r.has_symtab());
  Symbol s;
  EXPECT_NE(r.find_dynsym(kGetThreadpool, &s), 0u);
}
