// CPU topology for `poolshim info`: packages, cores, logical CPUs, from Debian's libcpuinfo
// loaded PRIVATELY. Only the command links this file (shim/CMakeLists.txt); the library never
// probes the topology, so no line of the shim's own log shows it (a failed probe logs at debug,
// in the command's process).
//
// Why dlopen(RTLD_LOCAL) and never a link: a preloaded library's DT_NEEDED dependencies join the
// global scope, so a linked libcpuinfo would interpose the private cpuinfo copies that legacy
// modules (XNNPACK, libtorch) carry, with a different version and struct layout
// (docs/interposition.md). Opened RTLD_LOCAL and used through dlsym on our own handle, its symbols
// stay out of everybody else's lookups.
//
// Only for that report: cpuinfo_initialize parses much of /proc and /sys, outside our sysfs seam.
#pragma once
#include <cstddef>

namespace poolshim::cli {

struct Topology {
  size_t packages = 0;
  size_t cores = 0;
  size_t logical = 0;
  bool available = false;  // false: the counts are 0 and detail says why
  char detail[128] = "";   // e.g. "cpuinfo: 1 package, 2 cores, 2 logical CPUs"
};

// The topology, probed once (thread-safe) with libcpuinfo.so.0.
const Topology& topology();

// One probe with the named library (tests use a missing name). Not cached. Never dlclose()s a
// library that initialised: cpuinfo keeps process-lifetime state.
Topology probe_topology(const char* soname);

// The soname topology() loads.
constexpr const char* kCpuinfoSoname = "libcpuinfo.so.0";

}  // namespace poolshim::cli
