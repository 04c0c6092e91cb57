// Helpers shared by the elf_*_test.cpp suites: where the fixture modules are, and reading a
// file into memory.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace poolshim_elf_test {

// build/lib/variants/<name> (tests/fixtures/variants_elf.cmake).
inline std::string variant(const std::string& name) {
  return std::string(POOLSHIM_BINARY_DIR) + "/lib/variants/" + name;
}

// The whole file, or an empty vector when it cannot be read.
inline std::vector<unsigned char> read_file(const std::string& path) {
  std::vector<unsigned char> out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  unsigned char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.insert(out.end(), buf, buf + n);
  close(fd);
  return out;
}

constexpr const char* kGetThreadpool = "_ZN10executorch9extension10threadpool14get_threadpoolEv";
constexpr const char* kGuardFlag =
    "_ZN10executorch9extension10threadpool25NoThreadPoolGuard_enabledE";

}  // namespace poolshim_elf_test
