// The group ledger (shim/budget/group_ledger): join, the shared count, reclaim of a dead member's
// share (a real child process that dies holding counts), and refusal of corrupt or foreign files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "budget/group_ledger.h"
#include "config/options.h"

using namespace poolshim::budget::group;

namespace {

class GroupLedger : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = "/dev/shm/poolshim-unittest-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    unlink(path_.c_str());
  }
  void TearDown() override { unlink(path_.c_str()); }

  bool join_ok(Member* m) {
    char why[320] = "";
    bool ok = join(path_.c_str(), 4, m, why, sizeof why);
    EXPECT_TRUE(ok) << why;
    return ok;
  }
  std::string join_error() {
    Member m;
    char why[320] = "";
    EXPECT_FALSE(join(path_.c_str(), 4, &m, why, sizeof why));
    EXPECT_EQ(m.ledger, nullptr);
    return why;
  }
  void write_file(const std::string& bytes, mode_t mode) {
    int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, mode);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    fchmod(fd, mode);
    close(fd);
  }
  std::string path_;
};

TEST(GroupName, StrictlyValidated) {
  using poolshim::config::parse_group;
  std::string longest(64, 'x'), too_long(65, 'x');
  for (const char* ok : {"a", "serve-1", "A.b_c-9", "..", longest.c_str()})
    EXPECT_TRUE(parse_group(ok)) << ok;
  for (const char* bad : {"", "a/b", "a b", "x\n", "../x", "é", "a:b", too_long.c_str()})
    EXPECT_FALSE(parse_group(bad)) << bad;
}

TEST(GroupName, LedgerPathIsPerUser) {
  char p[160];
  ASSERT_TRUE(ledger_path("serve", p, sizeof p));
  EXPECT_EQ(std::string(p), "/dev/shm/poolshim-" + std::to_string(geteuid()) + "-serve");
}

TEST_F(GroupLedger, CreatesOwnerOnlyFileAndSharesOneCount) {
  Member a, b;
  ASSERT_TRUE(join_ok(&a));
  EXPECT_TRUE(a.created);
  struct stat st;
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, geteuid());
  EXPECT_EQ(static_cast<size_t>(st.st_size), ledger_size());

  ASSERT_TRUE(join_ok(&b));
  EXPECT_FALSE(b.created);
  EXPECT_NE(a.slot, b.slot);
  EXPECT_EQ(members(a), 2u);

  // Budget 2 shared by a and b: callers always count, workers only below the limit.
  caller_enter(a);
  EXPECT_TRUE(worker_try_enter(b, 2));
  EXPECT_EQ(busy(a), 2);
  EXPECT_FALSE(worker_try_enter(a, 2));
  EXPECT_FALSE(worker_try_enter(b, 2));
  EXPECT_FALSE(over_budget(b, 2));
  caller_enter(b);  // a caller never waits, even over the limit
  EXPECT_EQ(busy(b), 3);
  EXPECT_TRUE(over_budget(a, 2));
  worker_leave(b);
  EXPECT_FALSE(over_budget(a, 2));
  caller_leave(b);
  EXPECT_TRUE(worker_try_enter(b, 2));
  worker_leave(b);
  caller_leave(a);
  EXPECT_EQ(busy(a), 0);

  // Leaving gives back what a member still holds.
  caller_enter(b);
  leave(&b);
  EXPECT_EQ(busy(a), 0);
  EXPECT_EQ(members(a), 1u);
  leave(&a);
}

// A child joins, takes two counts and dies without giving them back (as under SIGKILL).
TEST_F(GroupLedger, ReclaimsTheShareOfADeadMember) {
  Member self;
  ASSERT_TRUE(join_ok(&self));
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Member m;
    char why[320];
    if (!join(path_.c_str(), 4, &m, why, sizeof why)) _exit(3);
    caller_enter(m);
    if (!worker_try_enter(m, 4)) _exit(4);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(busy(self), 2);
  EXPECT_EQ(members(self), 1u);  // the dead child is not counted as a member

  // The group is full for a limit of 2 until the dead share is taken back; a failed enter scans.
  caller_enter(self);
  EXPECT_TRUE(worker_try_enter(self, 3)) << "the failed CAS must trigger a reclaim scan";
  EXPECT_EQ(busy(self), 2);  // the caller and the worker of self; the child's 2 are gone
  worker_leave(self);
  caller_leave(self);
  EXPECT_EQ(reclaim(self), 0) << "a share is given back once";
  EXPECT_EQ(busy(self), 0);
  leave(&self);
}

// fork(): the child inherits the mapping and the parent's slot; it must take its own, so that
// its counts are not given back (or kept) with the parent's.
TEST_F(GroupLedger, ForkedChildTakesItsOwnSlot) {
  Member parent;
  ASSERT_TRUE(join_ok(&parent));
  caller_enter(parent);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Member m = parent;
    if (!reregister_after_fork(&m) || m.slot == parent.slot) _exit(3);
    caller_enter(m);
    _exit(members(m) == 2 ? 0 : 4);  // dies holding one count in its own slot
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(busy(parent), 2);
  EXPECT_EQ(reclaim(parent), 1) << "only the child's share is given back";
  EXPECT_EQ(busy(parent), 1);
  caller_leave(parent);
  leave(&parent);
}

TEST_F(GroupLedger, FreesTheSlotsOfDeadMembersWhenFull) {
  std::vector<Member> live(kMaxMembers);
  for (auto& m : live) ASSERT_TRUE(join_ok(&m));
  std::string why = join_error();
  EXPECT_NE(why.find("full"), std::string::npos) << why;
  for (auto& m : live) leave(&m);
  Member again;
  ASSERT_TRUE(join_ok(&again));
  leave(&again);
}

TEST_F(GroupLedger, RefusesGarbage) {
  write_file(std::string(ledger_size(), 'Z'), 0600);
  std::string why = join_error();
  EXPECT_NE(why.find("bad magic"), std::string::npos) << why;
  char buf[16];
  int fd = open(path_.c_str(), O_RDONLY);
  ASSERT_EQ(read(fd, buf, sizeof buf), 16);
  close(fd);
  EXPECT_EQ(std::string(buf, 16), std::string(16, 'Z')) << "a refused ledger is never written";
}

TEST_F(GroupLedger, RefusesTheWrongSize) {
  write_file(std::string(100, '\0'), 0600);
  std::string why = join_error();
  EXPECT_NE(why.find("wrong size"), std::string::npos) << why;
}

TEST_F(GroupLedger, RefusesAnotherVersion) {
  Member a;
  ASSERT_TRUE(join_ok(&a));
  leave(&a);
  int fd = open(path_.c_str(), O_RDWR);
  uint32_t v = 99;
  ASSERT_EQ(pwrite(fd, &v, sizeof v, 8), 4);  // the version field follows the 8-byte magic
  close(fd);
  std::string why = join_error();
  EXPECT_NE(why.find("another version"), std::string::npos) << why;
}

TEST_F(GroupLedger, RefusesAGroupOrWorldAccessibleFile) {
  Member a;
  ASSERT_TRUE(join_ok(&a));
  leave(&a);
  ASSERT_EQ(chmod(path_.c_str(), 0666), 0);
  std::string why = join_error();
  EXPECT_NE(why.find("owner-only"), std::string::npos) << why;
}

TEST_F(GroupLedger, RefusesASymlink) {
  std::string target = path_ + "-target";
  Member a;
  char why[320];
  ASSERT_TRUE(join(target.c_str(), 4, &a, why, sizeof why)) << why;
  leave(&a);
  ASSERT_EQ(symlink(target.c_str(), path_.c_str()), 0);
  std::string err = join_error();
  EXPECT_FALSE(err.empty());
  unlink(target.c_str());
}

TEST_F(GroupLedger, PeekReadsWithoutJoining) {
  char why[320];
  long b = -1;
  size_t n = 9, creator = 0;
  EXPECT_FALSE(peek(path_.c_str(), &b, &n, &creator, why, sizeof why));
  Member a;
  ASSERT_TRUE(join_ok(&a));
  caller_enter(a);
  ASSERT_TRUE(peek(path_.c_str(), &b, &n, &creator, why, sizeof why)) << why;
  EXPECT_EQ(b, 1);
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(creator, 4u);
  caller_leave(a);
  leave(&a);
}

TEST(GroupStartTime, ReadsField22OfProcStat) {
  uint64_t a = 0, b = 0;
  ASSERT_TRUE(process_start_time(getpid(), &a));
  ASSERT_TRUE(process_start_time(getpid(), &b));
  EXPECT_EQ(a, b);
  EXPECT_GT(a, 0u);
  uint64_t parent = 0;
  ASSERT_TRUE(process_start_time(getppid(), &parent));
  EXPECT_LE(parent, a);
  EXPECT_FALSE(process_start_time(0x7ffffff0, &a));
}

}  // namespace
