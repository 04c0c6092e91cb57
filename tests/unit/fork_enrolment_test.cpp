// Every piece of shim state with a lock or a thread is enrolled in lifecycle/fork.cpp's table, so a
// new mutex cannot be forgotten silently (docs/design.md, "Fork"). The check reads the sources:
// any file under shim/ that declares a mutex, a read-write or spin lock, or starts a thread must
// be named in the table (a header's state counts as its .cpp's).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "lifecycle/fork.h"

namespace fs = std::filesystem;

namespace {

const fs::path kShim = fs::path(POOLSHIM_TEST_DATA) / ".." / ".." / ".." / "shim";

// The text without // and /* */ comments (a comment that mentions a mutex is not one).
std::string code_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  static const std::regex comments(R"(//[^\n]*|/\*[\s\S]*?\*/)");
  return std::regex_replace(ss.str(), comments, "");
}

bool has_lock_or_thread(const std::string& code) {
  static const std::regex pattern(
      R"(\b(pthread_mutex_t|pthread_rwlock_t|pthread_spinlock_t|std::(recursive_|timed_|shared_)?mutex|std::thread|std::jthread|pthread_create)\b)");
  return std::regex_search(code, pattern);
}

std::set<std::string> enrolled() {
  size_t n = 0;
  const poolshim::lifecycle::ForkParticipant* t = poolshim::lifecycle::fork_participants(&n);
  std::set<std::string> names;
  for (size_t i = 0; i < n; ++i) names.insert(t[i].source);
  return names;
}

}  // namespace

TEST(ForkEnrolment, EveryFileWithALockOrAThreadIsInTheTable) {
  ASSERT_TRUE(fs::is_directory(kShim)) << kShim;
  std::set<std::string> names = enrolled();
  size_t files_with_locks = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kShim)) {
    const fs::path& p = entry.path();
    if (p.extension() != ".cpp" && p.extension() != ".h") continue;
    std::string rel = fs::relative(p, kShim).generic_string();
    if (rel == "lifecycle/fork.cpp" || rel == "lifecycle/fork.h") continue;
    // The fork locks' storage: each of its mutexes is bound, and so found, in its owner's file.
    if (rel == "base/fork_hooks.h") continue;
    if (!has_lock_or_thread(code_of(p))) continue;
    ++files_with_locks;
    std::string owner = rel.substr(0, rel.size() - p.extension().string().size()) + ".cpp";
    EXPECT_TRUE(names.count(owner) == 1)
        << rel << " has a lock or starts a thread, but " << owner
        << " is not in lifecycle/fork.cpp's participant table (add its prepare/parent/child hooks)";
  }
  EXPECT_GE(files_with_locks, 7u);  // the scan found the known ones (guards against a wrong path)
}

TEST(ForkEnrolment, EveryEntryNamesAnExistingFile) {
  size_t n = 0;
  const poolshim::lifecycle::ForkParticipant* t = poolshim::lifecycle::fork_participants(&n);
  ASSERT_GT(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    fs::path p = kShim / t[i].source;
    ASSERT_TRUE(fs::exists(p)) << t[i].source;
    std::string code = code_of(p);
    fs::path header = p;
    header.replace_extension(".h");
    if (fs::exists(header)) code += code_of(header);
    // Hooks come as a trio, or not at all (documented in the table). An entry without hooks
    // only records a decision about a lock; one with hooks may also reset thread state
    // (core/slots.cpp's scheduler slots are lock-free).
    bool any = t[i].prepare || t[i].parent || t[i].child;
    if (!any)
      EXPECT_TRUE(has_lock_or_thread(code)) << t[i].source << " is enrolled but has no lock";
    if (any) {
      EXPECT_TRUE(t[i].parent && t[i].child) << t[i].source;
      EXPECT_TRUE((t[i].prepare == nullptr) == (t[i].parent == nullptr)) << t[i].source;
    }
  }
}
