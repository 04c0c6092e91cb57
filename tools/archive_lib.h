// libarchive for `poolshim audit`, loaded at run time: the command has no DT_NEEDED on it, so
// `poolshim info`, `run` and the audit of plain files and processes start on a machine without
// libarchive (a wheel's bundled command, for one); only reading an archive needs it.
//
// The seam: the one list below names every libarchive function the command calls, once. Each
// pointer has the type of the function declared in <archive.h> / <archive_entry.h> (decltype),
// so the compiler checks every call against libarchive's own header; nothing else in tools/
// calls libarchive, and nothing links it (tools/CMakeLists.txt takes only its include folder).
// Loaded privately (base/private_library.h: RTLD_NOW | RTLD_LOCAL), once, on first use.
#pragma once
#include <archive.h>
#include <archive_entry.h>

namespace poolshim::cli {

// X(name) for each libarchive function used (audit_archive.cpp).
#define POOLSHIM_ARCHIVE_FUNCTIONS(X)   \
  X(archive_read_new)                   \
  X(archive_read_free)                  \
  X(archive_read_support_filter_all)    \
  X(archive_read_support_format_zip)    \
  X(archive_read_support_format_tar)    \
  X(archive_read_support_format_gnutar) \
  X(archive_read_open_filename)         \
  X(archive_read_next_header)           \
  X(archive_read_data)                  \
  X(archive_error_string)               \
  X(archive_errno)                      \
  X(archive_entry_filetype)             \
  X(archive_entry_pathname)

struct ArchiveLib {
#define POOLSHIM_ARCHIVE_POINTER(name) decltype(&::name) name = nullptr;
  POOLSHIM_ARCHIVE_FUNCTIONS(POOLSHIM_ARCHIVE_POINTER)
#undef POOLSHIM_ARCHIVE_POINTER
};

// The soname loaded, and the Debian package that ships it (named in the error).
constexpr const char* kArchiveSoname = "libarchive.so.13";
constexpr const char* kArchivePackage = "libarchive13";

// libarchive's functions, loaded on the first call (thread-safe); nullptr when it cannot be
// loaded or lacks one of them, and then *error (if given) receives one line saying why and
// which package to install.
const ArchiveLib* archive_lib(const char** error);

// One attempt with the named library (tests use a missing name); not cached.
const ArchiveLib* load_archive_lib(const char* soname, const char** error);

}  // namespace poolshim::cli
