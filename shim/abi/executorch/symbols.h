// The ExecuTorch ABI table (executorch_symbols.def) as C++: an enum of every exported name and
// the mangled/demangled strings, for forwarding, logging and tests.
#pragma once
#include <cstddef>

namespace poolshim::abi {

enum class EtSym : unsigned {
#define X(kind, ns, ident, mangled, demangled) ns##_##ident,
#include "symbols/executorch.def"
#undef X
  count
};

struct EtSymInfo {
  const char* mangled;
  const char* demangled;
  bool is_tls;
};

inline constexpr EtSymInfo kEtSymbols[] = {
#define FUNC false
#define TLS true
#define X(kind, ns, ident, mangled, demangled) {mangled, demangled, kind},
#include "symbols/executorch.def"
#undef X
#undef FUNC
#undef TLS
};

inline const EtSymInfo& et_symbol(EtSym s) { return kEtSymbols[static_cast<unsigned>(s)]; }

}  // namespace poolshim::abi
