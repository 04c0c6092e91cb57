// CPU topology through a privately loaded libcpuinfo: see topology.h.
#include "topology.h"

#include <cstdint>
#include <dlfcn.h>

#include "base/private_library.h"
#include "base/text.h"
#include "diag/log.h"

namespace poolshim::cli {
namespace {

// The four entry points we need (cpuinfo.h; CPUINFO_ABI is empty on Linux x86/ARM).
using InitFn = bool (*)();
using CountFn = uint32_t (*)();

Topology unavailable(const char* soname, const char* why, const char* more) {
  Topology t;
  base::Text(t.detail).appendf("%s %s%s%s", soname, why, more ? ": " : "", more ? more : "");
  return t;
}

constexpr const char* kEntryPoints[] = {"cpuinfo_initialize", "cpuinfo_get_packages_count",
                                        "cpuinfo_get_cores_count", "cpuinfo_get_processors_count"};
constexpr size_t kEntryCount = sizeof(kEntryPoints) / sizeof(kEntryPoints[0]);

}  // namespace

Topology probe_topology(const char* soname) {
  // Privately (RTLD_LOCAL keeps cpuinfo's symbols out of the global scope, see topology.h;
  // RTLD_NOW fails here, not later in a report): base/private_library.h.
  void* entry[kEntryCount];
  base::PrivateLibrary lib = base::open_private(soname, kEntryPoints, kEntryCount, entry);
  if (lib.handle == nullptr) {
    Topology t = unavailable(soname, "not loadable", lib.error);
    POOLSHIM_LOG(debug, "topology: %s", t.detail);
    return t;
  }
  auto init = reinterpret_cast<InitFn>(entry[0]);
  auto packages = reinterpret_cast<CountFn>(entry[1]);
  auto cores = reinterpret_cast<CountFn>(entry[2]);
  auto logical = reinterpret_cast<CountFn>(entry[3]);
  if (lib.found != kEntryCount) {
    dlclose(lib.handle);  // nothing of it ran: safe to unload
    return unavailable(soname, "lacks the cpuinfo entry points", nullptr);
  }
  if (!init()) return unavailable(soname, "cpuinfo_initialize() failed", nullptr);
  Topology t;
  t.packages = packages();
  t.cores = cores();
  t.logical = logical();
  t.available = t.logical > 0;
  if (!t.available) return unavailable(soname, "reports no processors", nullptr);
  base::Text(t.detail).appendf("cpuinfo: %zu package%s, %zu core%s, %zu logical CPU%s", t.packages,
                               t.packages == 1 ? "" : "s", t.cores, t.cores == 1 ? "" : "s",
                               t.logical, t.logical == 1 ? "" : "s");
  return t;
}

const Topology& topology() {
  static const Topology t = probe_topology(kCpuinfoSoname);
  return t;
}

}  // namespace poolshim::cli
