// libarchive loaded on first use: see archive_lib.h.
#include "archive_lib.h"

#include <dlfcn.h>

#include <cstddef>
#include <string>

#include "base/private_library.h"

namespace poolshim::cli {
namespace {

constexpr const char* kNames[] = {
#define POOLSHIM_ARCHIVE_NAME(name) #name,
    POOLSHIM_ARCHIVE_FUNCTIONS(POOLSHIM_ARCHIVE_NAME)
#undef POOLSHIM_ARCHIVE_NAME
};
constexpr size_t kCount = sizeof(kNames) / sizeof(kNames[0]);

struct Loaded {
  const ArchiveLib* lib;
  std::string error;
};

}  // namespace

const ArchiveLib* load_archive_lib(const char* soname, const char** error) {
  static thread_local std::string message;  // the last failure's line, for *error
  void* entry[kCount];
  base::PrivateLibrary h = base::open_private(soname, kNames, kCount, entry);
  if (h.handle == nullptr) {
    message = std::string("cannot read archives: ") + soname +
              " cannot be loaded (install Debian's " + kArchivePackage + "): " + h.error;
  } else if (h.found != kCount) {
    dlclose(h.handle);  // nothing of it ran: safe to unload
    message = std::string("cannot read archives: ") + soname + " lacks " +
              std::to_string(kCount - h.found) + " of the " + std::to_string(kCount) +
              " libarchive functions the command uses";
  } else {
    auto* lib = new ArchiveLib;  // process lifetime, like the handle
    size_t i = 0;
#define POOLSHIM_ARCHIVE_BIND(name) lib->name = reinterpret_cast<decltype(lib->name)>(entry[i++]);
    POOLSHIM_ARCHIVE_FUNCTIONS(POOLSHIM_ARCHIVE_BIND)
#undef POOLSHIM_ARCHIVE_BIND
    return lib;
  }
  if (error != nullptr) *error = message.c_str();
  return nullptr;
}

const ArchiveLib* archive_lib(const char** error) {
  static const Loaded loaded = [] {
    const char* why = nullptr;
    const ArchiveLib* lib = load_archive_lib(kArchiveSoname, &why);
    return Loaded{lib, lib != nullptr ? std::string() : std::string(why)};
  }();
  if (loaded.lib == nullptr && error != nullptr) *error = loaded.error.c_str();
  return loaded.lib;
}

}  // namespace poolshim::cli
