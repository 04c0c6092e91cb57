// CPU topology through a privately loaded libcpuinfo: see topology.h.
#include "budget/topology.h"

#include <cstdint>
#include <dlfcn.h>

#include "budget/text.h"
#include "diag/log.h"

namespace poolshim::budget {
namespace {

// The four entry points we need (cpuinfo.h; CPUINFO_ABI is empty on Linux x86/ARM).
using InitFn = bool (*)();
using CountFn = uint32_t (*)();

Topology unavailable(const char* soname, const char* why, const char* more) {
  Topology t;
  appendf(t.detail, sizeof(t.detail), "%s %s%s%s", soname, why, more ? ": " : "", more ? more : "");
  return t;
}

}  // namespace

Topology probe_topology(const char* soname) {
  // RTLD_LOCAL keeps cpuinfo's symbols out of the global scope (see topology.h). RTLD_NOW: fail
  // here, not later in a report, if something is missing.
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    Topology t = unavailable(soname, "not loadable", err);
    POOLSHIM_LOG(debug, "topology: %s", t.detail);
    return t;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(handle, "cpuinfo_initialize"));
  auto packages = reinterpret_cast<CountFn>(dlsym(handle, "cpuinfo_get_packages_count"));
  auto cores = reinterpret_cast<CountFn>(dlsym(handle, "cpuinfo_get_cores_count"));
  auto logical = reinterpret_cast<CountFn>(dlsym(handle, "cpuinfo_get_processors_count"));
  if (init == nullptr || packages == nullptr || cores == nullptr || logical == nullptr) {
    dlclose(handle);  // nothing of it ran: safe to unload
    return unavailable(soname, "lacks the cpuinfo entry points", nullptr);
  }
  if (!init()) return unavailable(soname, "cpuinfo_initialize() failed", nullptr);
  Topology t;
  t.packages = packages();
  t.cores = cores();
  t.logical = logical();
  t.available = t.logical > 0;
  if (!t.available) return unavailable(soname, "reports no processors", nullptr);
  appendf(t.detail, sizeof(t.detail), "cpuinfo: %zu package%s, %zu core%s, %zu logical CPU%s",
          t.packages, t.packages == 1 ? "" : "s", t.cores, t.cores == 1 ? "" : "s", t.logical,
          t.logical == 1 ? "" : "s");
  return t;
}

const Topology& topology() {
  static const Topology t = probe_topology(kCpuinfoSoname);
  return t;
}

}  // namespace poolshim::budget
