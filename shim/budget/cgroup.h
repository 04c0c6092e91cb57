// The process's cgroup CPU limit: which hierarchies it belongs to, where they are mounted, and the
// tightest CPU quota between its own cgroup and the mount's root. Every file is read through the
// sysfs seam (sysfs.h), so tests run this on fixture trees.
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::budget {

constexpr size_t kCgroupPathCap = 1024;

enum class CgroupVersion : int { none = 0, v1 = 1, v2 = 2 };

struct CgroupLimit {
  // The tightest limit found (version != none), exactly as read.
  CgroupVersion version = CgroupVersion::none;
  uint64_t quota = 0;             // microseconds per period
  uint64_t period = 0;            // microseconds
  size_t cpus = 0;                // quota_cpus(quota, period); 0 = no limit found
  char dir[kCgroupPathCap] = "";  // the directory that holds it, e.g. "/sys/fs/cgroup/user.slice"

  // The directories examined, for the "no limit" report, e.g. "v2 /sys/fs/cgroup/a/b".
  char checked[256] = "";
  // The first problem met (bad value, unreadable file, missing mountinfo...), "" if none. A
  // problem never makes a limit up: the file in question is ignored.
  char problem[256] = "";
  size_t problems = 0;  // how many problems in all (each was logged at warn)
};

// Reads /proc/self/cgroup and /proc/self/mountinfo, then, for the cgroup v2 hierarchy and the v1
// hierarchy that holds the "cpu" controller (both, on a hybrid system), walks from the process's
// cgroup directory up to the mount point and keeps the tightest quota/period (exact ratio). Never
// fails: when nothing can be read, the result has no limit and says why.
CgroupLimit read_cgroup_limit();

// Human-readable description of the limit that was found, e.g.
// "cgroup v2 cpu.max 150000 100000 at /sys/fs/cgroup/user.slice". "" when there is none.
void describe_limit(const CgroupLimit& limit, char* out, size_t cap);

// What read_cgroup_limit() concluded, for Budget::cgroup_detail: the limit (and a problem if one
// was also met), or why none applied.
void describe_detail(const CgroupLimit& limit, char* out, size_t cap);

}  // namespace poolshim::budget
