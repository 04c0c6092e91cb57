// libarchive loaded on first use, privately, by the command (tools/archive_lib.h).
#include "archive_lib.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <string>

namespace pc = poolshim::cli;

TEST(ArchiveLib, MissingLibraryIsOneLineNamingThePackage) {
  const char* error = nullptr;
  EXPECT_EQ(pc::load_archive_lib("libpoolshim-no-such-library.so.13", &error), nullptr);
  ASSERT_NE(error, nullptr);
  std::string e(error);
  EXPECT_NE(e.find("cannot read archives"), std::string::npos) << e;
  EXPECT_NE(e.find(pc::kArchivePackage), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << "one line: " << e;
}

TEST(ArchiveLib, LibraryWithoutTheFunctionsIsRefused) {
  const char* error = nullptr;
  EXPECT_EQ(pc::load_archive_lib("libm.so.6", &error), nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("lacks 13 of the 13 libarchive functions"), std::string::npos)
      << error;
}

TEST(ArchiveLib, LoadedOnFirstUseWithEveryFunctionAndStaysPrivate) {
  // The test host installs libarchive13 (scripts/deps.sh build); without it this is a real failure.
  EXPECT_EQ(dlopen(pc::kArchiveSoname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD), nullptr)
      << "libarchive must not be loaded before an archive is read";
  const char* error = nullptr;
  const pc::ArchiveLib* lib = pc::archive_lib(&error);
  ASSERT_NE(lib, nullptr) << error;
  EXPECT_EQ(lib, pc::archive_lib(nullptr));  // once
#define POOLSHIM_ARCHIVE_CHECK(name) EXPECT_NE(lib->name, nullptr) << #name;
  POOLSHIM_ARCHIVE_FUNCTIONS(POOLSHIM_ARCHIVE_CHECK)
#undef POOLSHIM_ARCHIVE_CHECK
  archive* a = lib->archive_read_new();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(lib->archive_read_support_format_zip(a), ARCHIVE_OK);
  EXPECT_NE(lib->archive_read_open_filename(a, "/nonexistent/poolshim.whl", 1 << 16), ARCHIVE_OK);
  EXPECT_NE(lib->archive_error_string(a), nullptr);
  EXPECT_EQ(lib->archive_read_free(a), ARCHIVE_OK);
  // RTLD_LOCAL: libarchive's names stay out of the global scope.
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "archive_read_new"), nullptr);
}
