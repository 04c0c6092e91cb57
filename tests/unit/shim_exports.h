// The dynamic symbols libpoolshim.so defines, as `nm -D --defined-only` lists them:
// name -> nm type letter. Shared by the export tests (exports_test, pthreadpool_exports_test).
// shim_versioned_exports() keeps the versions: name@@VERSION or name@VERSION -> type.
#pragma once
#include <stdio.h>

#include <map>
#include <sstream>
#include <string>

inline const std::string& shim_library_path() {
  static const std::string path = std::string(POOLSHIM_BINARY_DIR) + "/lib/libpoolshim.so";
  return path;
}

// As nm prints them, version suffix included (version definitions, type A, left out: POOLSHIM_1,
// OMP_1.0, ... name a version, not a symbol of any surface). Empty when nm cannot be run or the
// library is missing (tests then fail on an empty set).
inline std::map<std::string, std::string> shim_versioned_exports() {
  std::map<std::string, std::string> names;
  std::string cmd = "nm -D --defined-only '" + shim_library_path() + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return names;
  char line[4096];
  while (fgets(line, sizeof line, p)) {
    std::istringstream in(line);
    std::string addr, type, name;
    if (in >> addr >> type >> name && type != "A") names[name] = type;
  }
  pclose(p);
  return names;
}

// The same names without their versions (name@@VERSION or name@VERSION -> name): the export
// lists hold names; tests/unit/openmp_exports_test.cpp checks the versions.
inline std::map<std::string, std::string> shim_dynamic_exports() {
  std::map<std::string, std::string> names;
  for (const auto& [name, type] : shim_versioned_exports())
    names[name.substr(0, name.find('@'))] = type;
  return names;
}
