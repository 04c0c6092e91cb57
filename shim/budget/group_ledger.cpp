// The group ledger: mapping, checks on join, member slots, the shared busy count and the reclaim
// of dead members' shares. See group_ledger.h; the layout below is the file's format (version 1).
#include "budget/group_ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include "base/clock.h"
#include "base/no_cancel.h"

namespace poolshim::budget::group {

namespace {
constexpr uint64_t kMagic = 0x31504752474d5350ull;  // "PSMGRGP1" little-endian
constexpr uint32_t kVersion = 1;
// pid values of a slot: 0 free, kClaiming while a process fills it in or empties it, > 0 a member.
constexpr int32_t kFree = 0;
constexpr int32_t kClaiming = -1;
}  // namespace

// The file's layout. Every field another process may write concurrently is a lock-free atomic
// (std::atomic of 4/8 bytes is address-free on Linux, so it works across processes).
struct alignas(64) Slot {
  std::atomic<int32_t> pid;
  uint32_t reserved;
  std::atomic<uint64_t> start_time;  // /proc/PID/stat field 22: tells a reused pid apart
  std::atomic<int64_t> busy;         // this member's share of the count
  char pad[40];
};

struct Ledger {
  std::atomic<uint64_t> magic;  // stored last (release) by the creator: the rest is initialised
  uint32_t version;
  uint32_t size;            // sizeof(Ledger)
  uint32_t slots;           // kMaxMembers
  uint32_t creator_budget;  // for reports
  uint64_t pid_namespace;   // inode of the creator's /proc/self/ns/pid (0 = unknown)
  char pad0[64 - 32];
  alignas(64) std::atomic<int64_t> busy;          // threads busy on pool work across the group
  alignas(64) std::atomic<int64_t> last_scan_ns;  // CLOCK_MONOTONIC of the last reclaim scan
  alignas(64) Slot slot[kMaxMembers];
};

static_assert(std::atomic<int64_t>::is_always_lock_free &&
                  std::atomic<int32_t>::is_always_lock_free &&
                  std::atomic<uint64_t>::is_always_lock_free,
              "the ledger needs address-free atomics");
static_assert(sizeof(Ledger) % 64 == 0, "layout");

namespace {

void set_why(char* why, size_t len, const char* fmt, const char* path, const char* detail = "") {
  if (why != nullptr && len > 0) snprintf(why, len, fmt, path, detail);
}

uint64_t my_pid_namespace() {
  struct stat st;
  return stat("/proc/self/ns/pid", &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

// A member is dead when its pid is gone, or when the pid now belongs to a process that started at
// another time (pid reuse). EPERM from kill() means the pid exists.
bool member_dead(int32_t pid, uint64_t start_time) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  uint64_t now = 0;
  return start_time != 0 && process_start_time(pid, &now) && now != start_time;
}

// Takes a free slot for this process. A slot is claimed with a CAS (0 -> kClaiming), filled in,
// then published with the pid (release), so a scanner never sees a member without its start time.
bool take_slot(Ledger* l, uint32_t* out) {
  uint64_t start = 0;
  process_start_time(getpid(), &start);
  for (uint32_t i = 0; i < kMaxMembers; ++i) {
    Slot& s = l->slot[i];
    int32_t expected = kFree;
    if (!s.pid.compare_exchange_strong(expected, kClaiming, std::memory_order_acq_rel)) continue;
    s.start_time.store(start, std::memory_order_relaxed);
    s.busy.store(0, std::memory_order_relaxed);
    s.pid.store(getpid(), std::memory_order_release);
    *out = i;
    return true;
  }
  return false;
}

// Maps an opened ledger file after the owner/mode checks. Waits (bounded: ~200 ms) for a creator
// that has just made the file to size and initialise it; never longer.
Ledger* map_checked(int fd, const char* path, char* why, size_t len, int prot) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  struct stat st;
  for (int tries = 0;; ++tries) {
    if (fstat(fd, &st) != 0) {
      set_why(why, len, "cannot stat the group ledger %s: %s", path, strerror(errno));
      return nullptr;
    }
    if (!S_ISREG(st.st_mode)) {
      set_why(why, len, "the group ledger %s is not a regular file", path);
      return nullptr;
    }
    if (st.st_uid != geteuid()) {
      set_why(why, len, "the group ledger %s belongs to another user", path);
      return nullptr;
    }
    if ((st.st_mode & 07777) != 0600) {
      set_why(why, len, "the group ledger %s is not owner-only (mode must be 0600)", path);
      return nullptr;
    }
    if (st.st_size == static_cast<off_t>(sizeof(Ledger))) break;
    if (st.st_size != 0 || tries >= 200) {  // 0: the creator has not sized it yet
      set_why(why, len, "the group ledger %s has the wrong size (corrupt or another version)",
              path);
      return nullptr;
    }
    usleep(1000);
  }
  void* p = mmap(nullptr, sizeof(Ledger), prot, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    set_why(why, len, "cannot map the group ledger %s: %s", path, strerror(errno));
    return nullptr;
  }
  auto* l = static_cast<Ledger*>(p);
  // A creator between ftruncate and its magic store: give it a moment (bounded).
  for (int tries = 0; l->magic.load(std::memory_order_acquire) == 0 && tries < 200; ++tries)
    usleep(1000);
  const char* bad = nullptr;
  if (l->magic.load(std::memory_order_acquire) != kMagic)
    bad = "bad magic";
  else if (l->version != kVersion)
    bad = "another version";
  else if (l->size != sizeof(Ledger) || l->slots != kMaxMembers)
    bad = "bad size";
  else if (l->pid_namespace != 0 && my_pid_namespace() != 0 &&
           l->pid_namespace != my_pid_namespace())
    bad = "created in another pid namespace";
  if (bad != nullptr) {
    munmap(p, sizeof(Ledger));
    set_why(why, len, "the group ledger %s is not usable (%s)", path, bad);
    return nullptr;
  }
  return l;
}

}  // namespace

bool process_start_time(int pid, uint64_t* out) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  char path[40];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  // comm (field 2) may hold spaces and ')': fields 3.. start after the last ')'.
  char* p = strrchr(buf, ')');
  if (p == nullptr) return false;
  ++p;
  for (int field = 3; field < 22; ++field) {  // skip fields 3..21
    while (*p == ' ') ++p;
    while (*p != ' ' && *p != '\0') ++p;
    if (*p == '\0') return false;
  }
  while (*p == ' ') ++p;
  uint64_t v = 0;
  bool any = false;
  for (; *p >= '0' && *p <= '9'; ++p, any = true) v = v * 10 + static_cast<uint64_t>(*p - '0');
  if (!any) return false;
  *out = v;
  return true;
}

bool ledger_path(const char* name, char* out, size_t len) {
  int n = snprintf(out, len, "/dev/shm/poolshim-%u-%s", static_cast<unsigned>(geteuid()), name);
  return n > 0 && static_cast<size_t>(n) < len;
}

bool join(const char* path, size_t budget, Member* out, char* why, size_t why_len) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  bool created = false;
  // O_NOFOLLOW: a symlink planted under the shared /dev/shm never redirects us; O_EXCL decides
  // who initialises. The mode is 0600 before the umask, and fchmod'ed in case the umask is odd.
  int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    created = true;
    if (fchmod(fd, 0600) != 0 || ftruncate(fd, sizeof(Ledger)) != 0) {
      set_why(why, why_len, "cannot create the group ledger %s: %s", path, strerror(errno));
      close(fd);
      unlink(path);
      return false;
    }
    void* p = mmap(nullptr, sizeof(Ledger), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      set_why(why, why_len, "cannot map the group ledger %s: %s", path, strerror(errno));
      close(fd);
      unlink(path);
      return false;
    }
    auto* l = static_cast<Ledger*>(p);  // zero-filled by ftruncate
    l->version = kVersion;
    l->size = sizeof(Ledger);
    l->slots = kMaxMembers;
    l->creator_budget = static_cast<uint32_t>(budget);
    l->pid_namespace = my_pid_namespace();
    l->magic.store(kMagic, std::memory_order_release);
    close(fd);
    out->ledger = l;
  } else if (errno == EEXIST) {
    fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      set_why(why, why_len, "cannot open the group ledger %s: %s", path, strerror(errno));
      return false;
    }
    Ledger* l = map_checked(fd, path, why, why_len, PROT_READ | PROT_WRITE);
    close(fd);
    if (l == nullptr) return false;
    out->ledger = l;
  } else {
    set_why(why, why_len, "cannot create the group ledger %s: %s", path, strerror(errno));
    return false;
  }
  out->created = created;
  if (!take_slot(out->ledger, &out->slot)) {
    reclaim(*out);  // dead members may hold every slot
    if (!take_slot(out->ledger, &out->slot)) {
      set_why(why, why_len, "the group ledger %s is full (%s members)", path, "64");
      munmap(out->ledger, sizeof(Ledger));
      out->ledger = nullptr;
      return false;
    }
  }
  return true;
}

bool peek(const char* path, long* busy_out, size_t* members_out, size_t* budget_out, char* why,
          size_t why_len, Share* shares_out, size_t cap, size_t* n_shares) {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    set_why(why, why_len, "%s: %s", path, errno == ENOENT ? "not created yet" : strerror(errno));
    return false;
  }
  Ledger* l = map_checked(fd, path, why, why_len, PROT_READ);
  close(fd);
  if (l == nullptr) return false;
  Member m;
  m.ledger = l;
  m.slot = kMaxMembers;  // no slot of ours
  *busy_out = busy(m);
  *members_out = members(m);
  *budget_out = creator_budget(m);
  if (shares_out != nullptr && n_shares != nullptr) *n_shares = shares(m, shares_out, cap);
  munmap(l, sizeof(Ledger));
  return true;
}

void leave(Member* m) {
  if (m->ledger == nullptr) return;
  Slot& s = m->ledger->slot[m->slot];
  int64_t mine = s.busy.exchange(0, std::memory_order_acq_rel);
  if (mine != 0) m->ledger->busy.fetch_sub(mine, std::memory_order_acq_rel);
  s.pid.store(kFree, std::memory_order_release);
  munmap(m->ledger, sizeof(Ledger));
  m->ledger = nullptr;
}

bool reregister_after_fork(Member* m) {
  if (m->ledger == nullptr) return false;
  m->created = false;
  return take_slot(m->ledger, &m->slot);
}

// Order of the two adds: the member's share first on the way in, last on the way out. A SIGKILL
// that lands between them (a few instructions) leaves the total one HIGHER than the shares (the
// group then runs one thread short), never lower: the budget is never exceeded by it.
void caller_enter(const Member& m) {
  m.ledger->busy.fetch_add(1, std::memory_order_acq_rel);
  m.ledger->slot[m.slot].busy.fetch_add(1, std::memory_order_relaxed);
}

void caller_leave(const Member& m) {
  m.ledger->slot[m.slot].busy.fetch_sub(1, std::memory_order_relaxed);
  m.ledger->busy.fetch_sub(1, std::memory_order_acq_rel);
}

namespace {
// A failed enter or an over-budget check may be caused by the shares of dead members: rescan,
// at most once per kScanIntervalNs across the whole group (the CAS on last_scan_ns elects one).
bool maybe_reclaim(const Member& m) {
  int64_t now = base::now_ns();
  int64_t last = m.ledger->last_scan_ns.load(std::memory_order_relaxed);
  if (now - last < kScanIntervalNs) return false;
  if (!m.ledger->last_scan_ns.compare_exchange_strong(last, now, std::memory_order_relaxed))
    return false;
  return reclaim(m) > 0;
}

bool try_add(const Member& m, int64_t limit) {
  int64_t cur = m.ledger->busy.load(std::memory_order_relaxed);
  while (cur < limit) {
    if (m.ledger->busy.compare_exchange_weak(cur, cur + 1, std::memory_order_acq_rel,
                                             std::memory_order_relaxed)) {
      m.ledger->slot[m.slot].busy.fetch_add(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}
}  // namespace

bool worker_try_enter(const Member& m, size_t limit) {
  if (try_add(m, static_cast<int64_t>(limit))) return true;
  return maybe_reclaim(m) && try_add(m, static_cast<int64_t>(limit));
}

void worker_leave(const Member& m) { caller_leave(m); }

bool over_budget(const Member& m, size_t limit) {
  if (m.ledger->busy.load(std::memory_order_relaxed) <= static_cast<int64_t>(limit)) return false;
  maybe_reclaim(m);
  return m.ledger->busy.load(std::memory_order_relaxed) > static_cast<int64_t>(limit);
}

long reclaim(const Member& m) {
  long given_back = 0;
  for (uint32_t i = 0; i < kMaxMembers; ++i) {
    if (i == m.slot) continue;
    Slot& s = m.ledger->slot[i];
    int32_t pid = s.pid.load(std::memory_order_acquire);
    if (pid <= 0 || !member_dead(pid, s.start_time.load(std::memory_order_relaxed))) continue;
    // Claim the slot so that two scanners never give the same share back twice.
    if (!s.pid.compare_exchange_strong(pid, kClaiming, std::memory_order_acq_rel)) continue;
    int64_t share = s.busy.exchange(0, std::memory_order_acq_rel);
    if (share != 0) m.ledger->busy.fetch_sub(share, std::memory_order_acq_rel);
    given_back += share;
    s.start_time.store(0, std::memory_order_relaxed);
    s.pid.store(kFree, std::memory_order_release);
  }
  return given_back;
}

long busy(const Member& m) { return m.ledger->busy.load(std::memory_order_relaxed); }

size_t members(const Member& m) {
  size_t n = 0;
  for (uint32_t i = 0; i < kMaxMembers; ++i) {
    const Slot& s = m.ledger->slot[i];
    int32_t pid = s.pid.load(std::memory_order_acquire);
    if (pid > 0 && !member_dead(pid, s.start_time.load(std::memory_order_relaxed))) ++n;
  }
  return n;
}

size_t shares(const Member& m, Share* out, size_t cap) {
  size_t n = 0;
  for (uint32_t i = 0; i < kMaxMembers && n < cap; ++i) {
    const Slot& s = m.ledger->slot[i];
    int32_t pid = s.pid.load(std::memory_order_acquire);
    if (pid > 0 && !member_dead(pid, s.start_time.load(std::memory_order_relaxed)))
      out[n++] = Share{pid, static_cast<long>(s.busy.load(std::memory_order_relaxed))};
  }
  return n;
}

size_t creator_budget(const Member& m) { return m.ledger->creator_budget; }

size_t ledger_size() { return sizeof(Ledger); }
uint64_t ledger_magic() { return kMagic; }

}  // namespace poolshim::budget::group
