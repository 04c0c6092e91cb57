// Pure parsers for the cgroup files the budget reads. No I/O here: every function works on text
// handed to it, so the unit tests feed it strings directly.
//
// Formats (see cgroups(7), proc(5) "/proc/pid/mountinfo", and the kernel's
// Documentation/admin-guide/cgroup-v2.rst "cpu.max"):
//   /proc/self/cgroup   "hierarchy-id:controller-list:path" per line. cgroup v2 is "0::/path";
//                       v1 lists its controllers comma-separated, in any order
//                       ("4:cpuacct,cpu:/x").
//   mountinfo           "id parent maj:min root mount-point options [optional...] - fstype source
//                       super-options"; root and mount point escape ' ', '\t', '\n', '\\' as \ooo.
//   cpu.max (v2)        "$MAX $PERIOD", $MAX is "max" (no limit) or microseconds.
//   cpu.cfs_quota_us    (v1) "-1" (no limit) or microseconds; cpu.cfs_period_us microseconds.
#pragma once
#include <cstddef>
#include <cstdint>

namespace poolshim::budget {

// True when `token` is one element of the comma-separated list [list, list+len).
bool has_token(const char* list, size_t len, const char* token);

// One line of /proc/self/cgroup. The pointers point into the parsed line.
struct ProcCgroupEntry {
  bool v2 = false;             // hierarchy 0 with an empty controller list
  bool cpu = false;            // a v1 hierarchy whose controller list names "cpu"
  const char* path = nullptr;  // the cgroup path, e.g. "/user.slice/app.scope"
  size_t path_len = 0;
};
// False for a malformed line (fewer than two ':' or a path not starting with '/').
bool parse_proc_cgroup_line(const char* line, size_t len, ProcCgroupEntry* out);

// One line of /proc/self/mountinfo, tokenized in place (the line is modified: fields are
// NUL-terminated and root and mount point are unescaped).
struct MountEntry {
  const char* root = nullptr;         // the path within the mounted filesystem, e.g. "/docker/abc"
  const char* mount_point = nullptr;  // where it is mounted, e.g. "/sys/fs/cgroup"
  const char* fstype = nullptr;       // "cgroup2", "cgroup", ...
  const char* super_options = nullptr;  // "rw,cpu,cpuacct" for a v1 cgroup mount
};
// False for a malformed line (missing fields or no " - " separator).
bool parse_mountinfo_line(char* line, MountEntry* out);

// Decode mountinfo's octal escapes (\040 and friends) in place.
void unescape_octal(char* s);

// Result of parsing a quota file.
enum class Quota { limit, unlimited, invalid };

// cgroup v2 cpu.max. On `limit`, *quota and *period are > 0. On `invalid`, *why says what was
// wrong (a static string).
Quota parse_cpu_max(const char* text, uint64_t* quota, uint64_t* period, const char** why);

// cgroup v1 cpu.cfs_quota_us: "-1" is unlimited; otherwise a positive number of microseconds.
Quota parse_cfs_quota(const char* text, uint64_t* quota, const char** why);

// cgroup v1 cpu.cfs_period_us: a positive number. False (with *why) otherwise.
bool parse_cfs_period(const char* text, uint64_t* period, const char** why);

// ceil(quota / period), at least 1, without overflow. period must be > 0.
size_t quota_cpus(uint64_t quota, uint64_t period);

// True when quota_a/period_a < quota_b/period_b (exact, no rounding; periods > 0).
bool tighter(uint64_t quota_a, uint64_t period_a, uint64_t quota_b, uint64_t period_b);

// The process's cgroup directory relative to a mount of its hierarchy whose root (the path of the
// mounted subtree inside the hierarchy) is `mount_root`. A container often mounts only its own
// subtree: /proc/self/cgroup says "/docker/abc" and mountinfo's root is "/docker/abc", so the
// process's directory is the mount point itself ("/"). Writes a path starting with '/' to out.
// Returns false when the cgroup path is not inside the mounted subtree (or climbs with ".."): out
// is then "/" (the mount point, the nearest directory we can see), as a fallback.
bool relative_cgroup_path(const char* cgroup_path, const char* mount_root, char* out, size_t cap);

}  // namespace poolshim::budget
