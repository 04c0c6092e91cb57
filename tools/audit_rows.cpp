#include "audit_rows.h"

namespace poolshim::cli {

const char* row_kind_text(RowKind k) {
  switch (k) {
    case RowKind::not_read: return "not read";
    case RowKind::provider: return "provider";
    case RowKind::own_copy: return "own copy";
    case RowKind::unused_copy: return "unused copy";
    case RowKind::client: return "client";
    case RowKind::runtime: return "other runtime";
    case RowKind::other: break;
  }
  return "other";
}

RowKind row_kind(const AuditEntry& e) {
  if (!e.readable) return RowKind::not_read;
  if (e.verdict.provider) return RowKind::provider;
  if (e.verdict.carries_surface()) return RowKind::own_copy;
  for (const reach::SurfaceVerdict& v : e.verdict.surface)
    if (v.unused_copy) return RowKind::unused_copy;
  for (unsigned k = 0; k < reach::kSurfaceCount; ++k)
    if (e.client_of(k)) return RowKind::client;
  if (e.runtime != nullptr) return RowKind::runtime;
  return RowKind::other;
}

bool row_listed(const AuditEntry& e, bool all) { return all || row_kind(e) != RowKind::other; }

RowCounts count_rows(const std::vector<AuditEntry>& entries, bool all) {
  RowCounts c;
  for (const AuditEntry& e : entries) {
    if (e.verdict.any_unreachable()) ++c.unreachable;
    if (!row_listed(e, all)) continue;
    ++c.listed;
    switch (row_kind(e)) {
      case RowKind::not_read: ++c.not_read; break;
      case RowKind::provider: ++c.provider; break;
      case RowKind::own_copy:
        ++c.own_copy;
        if (e.verdict.any_unreachable()) ++c.own_copy_unreachable;
        break;
      case RowKind::unused_copy: ++c.unused_copy; break;
      case RowKind::client: ++c.client; break;
      case RowKind::runtime: ++c.runtime; break;
      case RowKind::other: ++c.other; break;
    }
  }
  return c;
}

std::string surface_cell(const AuditEntry& e, unsigned k, const ProcessFacts* proc) {
  if (!e.readable) return "error";
  if (e.verdict.provider) return "provider";
  const reach::SurfaceVerdict& v = e.verdict.surface[k];
  if (v.verdict == reach::Verdict::absent) return e.client_of(k) ? "client" : "-";
  if (v.verdict == reach::Verdict::redirected && proc != nullptr && !proc->shim_loaded)
    return "reachable";
  return reach::verdict_text(v.verdict);
}

namespace {

// Where the calls of a client of libgomp's ABI or of the pools' ABIs go.
std::string gomp_effect(unsigned k, const ProcessFacts* proc) {
  std::string surface = reach::surface_name(static_cast<reach::Surface>(k));
  // OpenMP calls that reach the shim run natively unless POOLSHIM_OPENMP=forward (docs/openmp.md).
  const char* openmp_mode = k == reach::kOpenmp
                                ? " (which runs their regions on its workers, or with "
                                  "POOLSHIM_OPENMP=forward forwards them to libgomp)"
                                : "";
  if (proc == nullptr)
    return "client of " + surface +
           ": its calls go through the dynamic linker, so under the preload they reach the "
           "shim" +
           (k == reach::kOpenmp ? openmp_mode : "'s one pool");
  if (proc->shim_loaded)
    return "client of " + surface + ": its calls reach the shim" +
           (k == reach::kOpenmp ? openmp_mode : "'s one pool") + " in this process";
  std::string where = proc->provider_of[k].empty() ? std::string("whichever module defines them")
                                                   : proc->provider_of[k] + " (its own pool)";
  return "client of " + surface + ": libpoolshim is not loaded, so its calls go to " + where;
}

// Where a __kmpc client's calls go (forwarded by default: docs/openmp.md, "Modes"), and whether
// this module would let POOLSHIM_KMPC=shim run them (the gate's rule, reach/kmpc_native.h).
std::string kmpc_effect(const AuditEntry& e, const ProcessFacts* proc) {
  const std::string head = "client of openmp through LLVM's and Intel's __kmpc ABI (clang, icx): ";
  const std::string mine =
      e.kmpc.blocks_native.empty()
          ? "this module imports none"
          : "this module imports " + e.kmpc.blocks_native + ", which keeps the process on libomp";
  const std::string mode =
      ", which passes them on to libomp or libiomp5, whose own threads run the regions "
      "(POOLSHIM_KMPC=shim runs them on the shared pool unless a loaded module imports an OpenMP "
      "function the shim does not run natively: " +
      mine + ")";
  if (proc == nullptr) return head + "under the preload its __kmpc_* calls enter the shim" + mode;
  if (proc->shim_loaded) return head + "its __kmpc_* calls enter the shim in this process" + mode;
  return head + "libpoolshim is not loaded, so its calls go to libomp or libiomp5 (its own pool)";
}

}  // namespace

std::string client_effect(const AuditEntry& e, unsigned k, const ProcessFacts* proc) {
  if (k != reach::kOpenmp || !e.kmpc_client()) return gomp_effect(k, proc);
  // A clang-built module's omp_* imports make it a client of libgomp's names too; its regions
  // start through __kmpc_fork_call, so only GOMP_* imports (gcc-built objects) add that line.
  if (!e.kmpc.gomp_client) return kmpc_effect(e, proc);
  return kmpc_effect(e, proc) + "; its GOMP_* calls: " + gomp_effect(k, proc);
}

}  // namespace poolshim::cli
