#include "audit_kmpc.h"

#include <string.h>

#include "reach/kmpc_native.h"

namespace poolshim::cli {

KmpcFacts kmpc_facts(const elf::Reader& r) {
  KmpcFacts f;
  if (!r.ok()) return f;
  elf::Symbol s;
  for (size_t i = 1; i < r.dynsym_count(); ++i) {
    if (!r.dynsym(i, &s) || s.name == nullptr) continue;
    if (!s.defined() && f.blocks_native.empty() && reach::kmpc_import_blocks(s.name))
      f.blocks_native = s.name;
    if (strncmp(s.name, "__kmpc_", 7) == 0) {
      if (!s.defined()) f.client = true;
      if (s.defined() && strcmp(s.name, "__kmpc_fork_call") == 0) f.runtime = true;
    } else if (!s.defined() && strncmp(s.name, "GOMP_", 5) == 0) {
      f.gomp_client = true;
    }
  }
  f.gomp_client = f.gomp_client && f.client;
  return f;
}

}  // namespace poolshim::cli
