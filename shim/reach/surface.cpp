// Surface membership by mangled name (Itanium C++ ABI), from the export tables. Prefix tests
// only: these run over every symbol of every module, so they must be cheap and allocation-free;
// the prefixes are worked out at compile time.
#include "reach/surface.h"

#include <array>
#include <cstring>

#include "symbols/openmp_rows.h"

namespace poolshim::reach {
namespace {

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr bool same_text(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// A run of <source-name>s ("10executorch9extension10threadpool") inside a mangled nested name.
struct Prefix {
  const char* text = nullptr;
  size_t length = 0;
};

// The nested name of a table entry without "_ZN" and its "K" (const member): its source names,
// all of them (the function's own name: any overload matches) or all but the last (its scope).
constexpr Prefix nested_prefix(const char* mangled, bool scope_only) {
  const char* s = mangled + (mangled[3] == 'K' ? 4 : 3);
  size_t end = 0, last_start = 0;
  while (is_digit(s[end])) {
    last_start = end;
    size_t n = 0;
    while (is_digit(s[end])) n = n * 10 + static_cast<size_t>(s[end++] - '0');
    end += n;
  }
  return Prefix{s, scope_only ? last_start : end};
}

constexpr bool starts_with(const char* s, const Prefix& p) {
  for (size_t i = 0; i < p.length; ++i)
    if (s[i] != p.text[i]) return false;
  return p.length > 0;
}

struct EtName {
  const char* mangled = nullptr;
  bool entry = false;    // get_threadpool() / get_pthreadpool(): how a module obtains a pool
  Prefix name;           // the function (any overload)
  Prefix scope;          // an entry point's namespace: all of it belongs to the surface
  bool covered = false;  // its name lies inside an entry point's namespace: no test of its own
};

constexpr EtName et_name(const char* ident, const char* mangled) {
  EtName e;
  e.mangled = mangled;
  e.entry = same_text(ident, "get_threadpool") || same_text(ident, "get_pthreadpool");
  e.name = nested_prefix(mangled, false);
  if (e.entry) e.scope = nested_prefix(mangled, true);
  return e;
}

template <size_t N>
constexpr std::array<EtName, N> with_coverage(std::array<EtName, N> names) {
  for (EtName& e : names)
    for (const EtName& ns : names)
      if (ns.entry && starts_with(e.name.text, ns.scope)) e.covered = true;
  return names;
}

constexpr auto kEtNames = with_coverage(std::array{
#define X(kind, ns, ident, mangled, demangled) et_name(#ident, mangled),
#include "symbols/executorch.def"
#undef X
});

constexpr size_t count_entries() {
  size_t n = 0;
  for (const EtName& e : kEtNames) n += e.entry ? 1 : 0;
  return n;
}
static_assert(count_entries() == 4, "get_threadpool and get_pthreadpool, in both namespaces");

constexpr char kPthreadpoolPrefix[] = "pthreadpool_";
constexpr const char* kPthreadpoolIdents[] = {
#define X(ident) #ident,
#include "symbols/pthreadpool.def"
#undef X
};

// pthreadpool_create: how a module obtains a pool.
constexpr bool is_pthreadpool_entry(const char* ident) { return same_text(ident, "create"); }

// OpenMP: the names of openmp.def's libgomp rows (symbols/openmp_rows.h: one name per version
// row, so a name may repeat, which only costs a comparison; libomp's rows, kmpc.def, are not a
// surface the audit judges). Only names that start with "GOMP_" or "omp_" reach the scan.

bool has_prefix(const char* s, const char* prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool is_openmp_name(const char* name) {
  if (!(name[0] == 'G' && has_prefix(name, "GOMP_")) &&
      !(name[0] == 'o' && has_prefix(name, "omp_")))
    return false;
  for (size_t row = 0; row < symbols::openmp_rows::kFirstLibompRow; ++row)
    if (strcmp(name, symbols::openmp_rows::name(row)) == 0) return true;
  return false;
}

// What starts a team: GOMP_parallel, its loop and sections combinations, the old start/end
// pair's start, GOMP_parallel_reductions, and the teams constructs. libgomp's own code never
// calls these (it calls GOMP_parallel_end, through a hidden alias, which is not an entry), so a
// libgomp that only serves other modules reads as an unused copy, not as bound locally.
bool is_openmp_entry(const char* name) {
  if (has_prefix(name, "GOMP_parallel")) return strcmp(name, "GOMP_parallel_end") != 0;
  return has_prefix(name, "GOMP_teams");
}

}  // namespace

const char* surface_name(Surface s) {
  switch (s) {
    case kExecutorch: return "executorch";
    case kPthreadpool: return "pthreadpool";
    case kOpenmp: return "openmp";
    case kSurfaceCount: break;
  }
  return "?";
}

bool is_surface_symbol(Surface s, const char* name) {
  if (name == nullptr) return false;
  if (s == kOpenmp) return is_openmp_name(name);
  if (s == kPthreadpool)
    return name[0] == 'p' && strncmp(name, kPthreadpoolPrefix, sizeof kPthreadpoolPrefix - 1) == 0;
  if (name[0] != '_' || name[1] != 'Z' || name[2] != 'N') return false;
  const char* nested = name + (name[3] == 'K' ? 4 : 3);
  for (const EtName& e : kEtNames) {
    if (e.entry && starts_with(nested, e.scope)) return true;
    if (!e.covered && starts_with(nested, e.name)) return true;
  }
  return false;
}

bool is_entry_symbol(Surface s, const char* name) {
  if (name == nullptr) return false;
  if (s == kOpenmp) return is_openmp_name(name) && is_openmp_entry(name);
  if (s == kPthreadpool) {
    if (strncmp(name, kPthreadpoolPrefix, sizeof kPthreadpoolPrefix - 1) != 0) return false;
    for (const char* ident : kPthreadpoolIdents)
      if (is_pthreadpool_entry(ident) && strcmp(name + sizeof kPthreadpoolPrefix - 1, ident) == 0)
        return true;
    return false;
  }
  if (name[0] != '_') return false;
  for (const EtName& e : kEtNames)
    if (e.entry && strcmp(name, e.mangled) == 0) return true;
  return false;
}

bool is_private_copy_entry(Surface s, const char* name) {
  if (is_entry_symbol(s, name)) return true;
  return s == kOpenmp && name != nullptr && strcmp(name, "__kmpc_fork_call") == 0;
}

bool is_provider_symbol(const char* name) {
  return name != nullptr && strcmp(name, "poolshim_get_info") == 0;
}

}  // namespace poolshim::reach
