// Finding libpoolshim.so relative to the running command (never through the environment or the
// dynamic linker's search path: `poolshim run` must preload the library it was built with).
#include <limits.h>
#include <unistd.h>

#include <string>

#include "cli.h"

#ifndef POOLSHIM_INSTALL_LIBDIR
#define POOLSHIM_INSTALL_LIBDIR "lib"
#endif

namespace poolshim::cli {
namespace {

std::string self_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string path(buf, static_cast<size_t>(n));
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::string find_library(std::string* tried) {
  std::string dir = self_dir();
  if (dir.empty()) return "";
  // Build tree first (build/bin -> build/lib), then the install's libdir (lib,
  // lib/x86_64-linux-gnu, lib64), then a runtime-only install that ships just the SONAME.
  const char* const kCandidates[] = {
      "/../lib/libpoolshim.so",
      "/../" POOLSHIM_INSTALL_LIBDIR "/libpoolshim.so",
      "/../lib64/libpoolshim.so",
      "/../lib/libpoolshim.so.0",
      "/../" POOLSHIM_INSTALL_LIBDIR "/libpoolshim.so.0",
  };
  for (const char* c : kCandidates) {
    std::string path = dir + c;
    if (tried) *tried += "  " + path + "\n";
    char real[PATH_MAX];
    if (access(path.c_str(), R_OK) == 0 && realpath(path.c_str(), real) != nullptr) return real;
  }
  return "";
}

}  // namespace poolshim::cli
