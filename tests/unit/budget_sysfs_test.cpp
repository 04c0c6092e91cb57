// The file-reading seam (shim/budget/sysfs.h): root prefix, whole-file reads, line reading with
// overlong lines skipped.
#include "budget/sysfs.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace sysfs = poolshim::budget::sysfs;

namespace {

// A scratch directory used as the seam's root; files are written at root + absolute path.
class SysfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/poolshim_sysfs_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(sysfs::set_root_for_testing(dir_.c_str()));
  }
  void TearDown() override {
    sysfs::set_root_for_testing("");
    for (const auto& f : files_) ::unlink(f.c_str());
    ::rmdir(dir_.c_str());
  }
  // Writes dir_/name (name without '/').
  void write(const char* name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ::close(fd);
    files_.push_back(path);
  }
  std::vector<std::string> lines(const char* path, size_t* skipped = nullptr) {
    std::vector<std::string> out;
    sysfs::LineReader r(path);
    EXPECT_TRUE(r.ok());
    size_t len = 0;
    while (char* line = r.next(&len)) {
      EXPECT_EQ(std::strlen(line), len);
      out.emplace_back(line, len);
    }
    EXPECT_EQ(r.error(), 0);
    if (skipped) *skipped = r.skipped();
    return out;
  }
  std::string dir_;
  std::vector<std::string> files_;
};

}  // namespace

TEST_F(SysfsTest, RootPrefixIsPrepended) {
  write("value", "42\n");
  char buf[16];
  ASSERT_EQ(sysfs::read_small_file("/value", buf, sizeof(buf)), 3);
  EXPECT_STREQ(buf, "42\n");
  EXPECT_EQ(std::string(sysfs::root()), dir_);
}

TEST_F(SysfsTest, TrailingSlashOnRootIsDropped) {
  write("value", "x");
  ASSERT_TRUE(sysfs::set_root_for_testing((dir_ + "///").c_str()));
  EXPECT_EQ(std::string(sysfs::root()), dir_);
  char buf[4];
  EXPECT_EQ(sysfs::read_small_file("/value", buf, sizeof(buf)), 1);
}

TEST_F(SysfsTest, OverlongRootIsRefused) {
  std::string long_root(600, 'a');
  EXPECT_FALSE(sysfs::set_root_for_testing(long_root.c_str()));
  EXPECT_EQ(std::string(sysfs::root()), dir_);  // unchanged
}

TEST_F(SysfsTest, MissingFileReportsErrno) {
  char buf[16];
  errno = 0;
  EXPECT_EQ(sysfs::read_small_file("/absent", buf, sizeof(buf)), -1);
  EXPECT_EQ(errno, ENOENT);
  sysfs::LineReader r("/absent");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error(), ENOENT);
  EXPECT_EQ(r.next(nullptr), nullptr);
}

TEST_F(SysfsTest, FileTooLargeForBufferIsEfbig) {
  write("big", "123456789");
  char buf[9];  // room for 8 bytes + NUL
  errno = 0;
  EXPECT_EQ(sysfs::read_small_file("/big", buf, sizeof(buf)), -1);
  EXPECT_EQ(errno, EFBIG);
  char exact[10];  // exactly fits
  EXPECT_EQ(sysfs::read_small_file("/big", exact, sizeof(exact)), 9);
  EXPECT_STREQ(exact, "123456789");
}

TEST_F(SysfsTest, EmptyFile) {
  write("empty", "");
  char buf[4] = "xyz";
  EXPECT_EQ(sysfs::read_small_file("/empty", buf, sizeof(buf)), 0);
  EXPECT_STREQ(buf, "");
  EXPECT_TRUE(lines("/empty").empty());
}

TEST_F(SysfsTest, LinesIncludingLastWithoutNewline) {
  write("lines", "first\n\nthird\nlast");
  auto got = lines("/lines");
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0], "first");
  EXPECT_EQ(got[1], "");
  EXPECT_EQ(got[2], "third");
  EXPECT_EQ(got[3], "last");
}

TEST_F(SysfsTest, OverlongLinesAreSkippedWhole) {
  const size_t big = sysfs::LineReader::kBufferSize * 3 + 17;
  std::string text = "before\n" + std::string(big, 'o') + "\nafter\n" +
                     std::string(sysfs::LineReader::kBufferSize, 'p') + "\nend\n" +
                     std::string(big, 'q');  // overlong and unterminated at EOF
  write("mixed", text);
  size_t skipped = 0;
  auto got = lines("/mixed", &skipped);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "before");
  EXPECT_EQ(got[1], "after");
  EXPECT_EQ(got[2], "end");
  EXPECT_EQ(skipped, 3u);
}

TEST_F(SysfsTest, LineFillingBufferExactlyMinusOneFits) {
  std::string fits(sysfs::LineReader::kBufferSize - 1, 'f');
  write("edge", "a\n" + fits + "\nz\n");
  auto got = lines("/edge");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1], fits);
  EXPECT_EQ(got[2], "z");
}

TEST_F(SysfsTest, ManyShortLinesAcrossBufferRefills) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += std::to_string(i) + "\n";
  write("many", text);
  auto got = lines("/many");
  ASSERT_EQ(got.size(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(got[i], std::to_string(i));
}
