// libFuzzer target: the ELF reader (shim/elf/reader.*) with what is built on it, the verdict
// (shim/reach/verdict.*) and the direct-call scan, over any bytes taken as a file image. Every
// accessor is touched, as in tests/unit/reach_fuzz_test.cpp; libFuzzer's input buffer is exactly
// sized, so ASan sees any read outside the file.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "elf/direct_calls.h"
#include "elf/reader.h"
#include "reach/verdict.h"

using namespace poolshim::elf;
using namespace poolshim::reach;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r;
  r.open_file(data, size);
  volatile size_t sum = r.problems() + static_cast<size_t>(r.kind()) + r.symbolic();
  char text[512];
  sum = sum + strlen(describe_problems(r.problems(), text, sizeof text));
  if (const char* s = r.soname()) sum = sum + strlen(s);
  Symbol s;
  for (size_t i = 0; i < r.dynsym_count(); ++i)
    if (r.dynsym(i, &s) && s.name) sum = sum + strlen(s.name) + s.value;
  for (size_t i = 0; i < r.symtab_count(); ++i)
    if (r.symtab(i, &s) && s.name) sum = sum + strlen(s.name);
  Reloc rel;
  for (size_t i = 0; i < r.reloc_count(); ++i)
    if (r.reloc(i, &rel)) sum = sum + rel.sym + static_cast<size_t>(rel.cls);
  const char* names[] = {"_ZN10executorch9extension10threadpool14get_threadpoolEv",
                         "pthreadpool_create", "pthreadpool_parallelize_1d", "", "malloc"};
  for (const char* n : names) sum = sum + r.find_dynsym(n, &s);
  ModuleVerdict v = judge(r, false);
  sum = sum + static_cast<size_t>(v.surface[0].verdict) + strlen(v.surface[0].symbol);
  uint64_t targets[] = {0x1000, 0x2000, 0x2a90};
  sum = sum + find_direct_calls(r, targets, 3).hits;
  (void)sum;
  return 0;
}
