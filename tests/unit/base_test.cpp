// shim/base/: bounded text and the private dlopen with its "not ours" check.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>

#include "base/private_library.h"
#include "base/text.h"

using poolshim::base::Text;

namespace {

TEST(Text, AppendsAndTruncatesAlwaysTerminated) {
  char buf[8];
  Text t(buf);
  t.append("abc").appendf("%d", 42);
  EXPECT_STREQ(buf, "abc42");
  EXPECT_EQ(t.size(), 5u);
  EXPECT_FALSE(t.truncated());
  t.append("xyz");  // 2 of 3 bytes fit
  EXPECT_STREQ(buf, "abc42xy");
  EXPECT_TRUE(t.truncated());
  EXPECT_EQ(t.room(), 0u);
  t.appendf("%s", "more").append_char('!');
  EXPECT_STREQ(buf, "abc42xy");
}

TEST(Text, FormattedOutputCutAtCapacity) {
  char buf[6];
  Text t(buf);
  t.appendf("%s-%d", "long", 12345);
  EXPECT_STREQ(buf, "long-");
  EXPECT_EQ(t.size(), 5u);
  EXPECT_TRUE(t.truncated());
}

TEST(Text, AfterContinuesExistingText) {
  char buf[16] = "one";
  Text::after(buf, sizeof buf).append(", two");
  EXPECT_STREQ(buf, "one, two");
  char unterminated[4] = {'a', 'b', 'c', 'd'};
  Text u = Text::after(unterminated, sizeof unterminated);
  EXPECT_EQ(u.size(), 3u);  // the last byte becomes the NUL
  EXPECT_STREQ(unterminated, "abc");
}

TEST(Text, ZeroCapacityNeverWrites) {
  char byte = 'x';
  Text t(&byte, 0);
  t.append("abc").appendf("%d", 1).append_sanitized("a\n", 4);
  EXPECT_EQ(byte, 'x');
  EXPECT_EQ(t.size(), 0u);
}

TEST(Text, SanitizedValueDropsNewlinesAndControlBytes) {
  char buf[32];
  Text(buf).append_sanitized(
      "12\x01"
      "3\x7f\n\r",
      16);
  EXPECT_STREQ(buf, "12?3?");
  Text(buf).append_sanitized("abcdef", 3);
  EXPECT_STREQ(buf, "abc");
}

TEST(PrivateLibrary, ResolvesAndReportsMissingPieces) {
  const char* names[] = {"strlen", "poolshim_no_such_symbol"};
  void* out[2] = {reinterpret_cast<void*>(1), reinterpret_cast<void*>(1)};
  poolshim::base::PrivateLibrary lib = poolshim::base::open_private("libc.so.6", names, 2, out);
  ASSERT_NE(lib.handle, nullptr);
  EXPECT_NE(out[0], nullptr);
  EXPECT_EQ(out[1], nullptr);
  EXPECT_EQ(lib.found, 1u);
  EXPECT_EQ(lib.refused, 0u);

  poolshim::base::PrivateLibrary none =
      poolshim::base::open_private("libpoolshim-does-not-exist.so.0", names, 2, out);
  EXPECT_EQ(none.handle, nullptr);
  ASSERT_NE(none.error, nullptr);
  EXPECT_NE(std::strstr(none.error, "libpoolshim-does-not-exist"), nullptr) << none.error;
  EXPECT_EQ(out[0], nullptr);
}

TEST(PrivateLibrary, OurOwnCodeIsRecognised) {
  // This test binary links the base objects: its own functions are "ours", libc's are not.
  EXPECT_TRUE(
      poolshim::base::is_ours(reinterpret_cast<const void*>(&poolshim::base::open_private)));
  EXPECT_FALSE(poolshim::base::is_ours(reinterpret_cast<const void*>(&strlen)));
  EXPECT_FALSE(poolshim::base::is_ours(nullptr));
}

}  // namespace
