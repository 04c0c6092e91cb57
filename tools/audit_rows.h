// What one audited module is, as one row of the audit (table and JSON share these): the rows
// and the summary counts come from the same classification, so they always agree.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "audit_scan.h"

namespace poolshim::cli {

enum class RowKind {
  not_read,     // the ELF data could not be read: no verdict
  provider,     // libpoolshim itself
  own_copy,     // carries a copy of a surface that it uses itself
  unused_copy,  // carries a copy it never calls (it only serves other modules)
  client,       // calls a surface it does not define
  runtime,      // another runtime's pool (OpenMP, OpenBLAS, MKL, oneTBB): named, not merged
  other,        // none of the above (listed only with --all)
};
const char* row_kind_text(RowKind k);  // "not read", "provider", "own copy", ...
RowKind row_kind(const AuditEntry& e);

struct RowCounts {
  size_t listed = 0;
  size_t not_read = 0, provider = 0, own_copy = 0, own_copy_unreachable = 0, unused_copy = 0,
         client = 0, runtime = 0, other = 0;
  size_t unreachable = 0;  // rows with some unreachable surface (any kind): the exit-1 condition
};
RowCounts count_rows(const std::vector<AuditEntry>& entries, bool all);
bool row_listed(const AuditEntry& e, bool all);

// The table cell of one surface: "redirected", "unreachable", "client", "provider", "error",
// "-", and under --pid of a process without the shim "reachable" (a preload would redirect it;
// today it runs its own pool).
std::string surface_cell(const AuditEntry& e, unsigned surface, const ProcessFacts* proc);
// What happens to a client's calls of that surface (OpenMP: by the ABI it calls), one sentence.
std::string client_effect(const AuditEntry& e, unsigned surface, const ProcessFacts* proc);

}  // namespace poolshim::cli
