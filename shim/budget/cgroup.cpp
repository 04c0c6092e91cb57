// The process's cgroup CPU limit: see cgroup.h.
//
// Why walk up: a limit set on a parent cgroup (systemd's user.slice, a Kubernetes pod's cgroup
// above the container's) caps every child, and the child's own cpu.max is often "max". The
// tightest limit between the process's cgroup and the top of what it can see is the one that
// binds. We compare the exact quota/period ratio, then round up: 1.2 CPUs is tighter than 1.5 even
// though both round to 2, and the directory we report should be the binding one.
//
// Why both hierarchies: on a "hybrid" systemd host, cgroup v2 is mounted (at
// /sys/fs/cgroup/unified) for process tracking only, and the cpu controller lives on v1. A
// controller is attached to one hierarchy at a time, so at most one of them carries limits; taking
// the tightest of both is right in every layout.
#include "budget/cgroup.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "budget/cgroup_parse.h"
#include "budget/sysfs.h"
#include "base/text.h"
#include "diag/log.h"

namespace poolshim::budget {
namespace {

constexpr const char* kProcCgroup = "/proc/self/cgroup";
constexpr const char* kMountinfo = "/proc/self/mountinfo";

// One hierarchy (v2, or the v1 one holding "cpu") as this process sees it.
struct Hierarchy {
  CgroupVersion version;
  bool member = false;                    // /proc/self/cgroup has a line for it
  char cgroup_path[kCgroupPathCap] = "";  // the process's cgroup in that hierarchy
  bool mounted = false;                   // a mount of it was found
  bool inside_root = false;               // the chosen mount's root contains cgroup_path
  // The process's directory: mount point + path relative to the mount's root. The walk goes up
  // to dir[0, mount_len), the mount point (without a trailing '/': "" for a mount at "/").
  char dir[kCgroupPathCap] = "";
  size_t mount_len = 0;
};

const char* version_name(CgroupVersion v) { return v == CgroupVersion::v2 ? "v2" : "v1"; }

// Records a problem: the first one is kept for the report, every one is logged (warn level, shown
// only when logging is enabled).
void note_problem(CgroupLimit* limit, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void note_problem(CgroupLimit* limit, const char* fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  base::Text(msg).vappendf(fmt, ap);
  va_end(ap);
  if (limit->problems++ == 0) base::Text(limit->problem).append(msg);
  POOLSHIM_LOG(warn, "budget: cgroup limit ignored: %s", msg);
}

void read_proc_cgroup(Hierarchy* v2, Hierarchy* v1, CgroupLimit* limit) {
  sysfs::LineReader reader(kProcCgroup);
  if (!reader.ok()) {
    note_problem(limit, "cannot read %s: %s", kProcCgroup, std::strerror(reader.error()));
    return;
  }
  size_t len = 0;
  while (char* line = reader.next(&len)) {
    ProcCgroupEntry e;
    if (!parse_proc_cgroup_line(line, len, &e)) continue;  // unknown line shapes are skipped
    Hierarchy* h = e.v2 ? v2 : (e.cpu ? v1 : nullptr);
    if (h == nullptr || h->member) continue;
    if (e.path_len >= sizeof(h->cgroup_path)) {
      note_problem(limit, "%s: cgroup path too long (%zu bytes)", kProcCgroup, e.path_len);
      continue;
    }
    std::memcpy(h->cgroup_path, e.path, e.path_len);
    h->cgroup_path[e.path_len] = '\0';
    h->member = true;
  }
  if (reader.error() != 0)
    note_problem(limit, "cannot read %s: %s", kProcCgroup, std::strerror(reader.error()));
}

// Considers one mount of h's hierarchy. The first mount whose root contains the process's cgroup
// wins; failing that, the first mount at all (its top is the nearest directory we can see).
void consider_mount(Hierarchy* h, const MountEntry& m) {
  if (h->mounted && h->inside_root) return;
  char rel[kCgroupPathCap];
  bool inside = relative_cgroup_path(h->cgroup_path, m.root, rel, sizeof(rel));
  if (h->mounted && !inside) return;
  size_t mp_len = std::strlen(m.mount_point);
  while (mp_len > 0 && m.mount_point[mp_len - 1] == '/') --mp_len;  // "/" -> ""
  size_t rel_len = (rel[0] == '/' && rel[1] == '\0') ? 0 : std::strlen(rel);
  if (mp_len + rel_len + 1 > sizeof(h->dir)) return;
  std::memcpy(h->dir, m.mount_point, mp_len);
  std::memcpy(h->dir + mp_len, rel, rel_len);
  h->dir[mp_len + rel_len] = '\0';
  h->mount_len = mp_len;
  h->mounted = true;
  h->inside_root = inside;
}

void read_mountinfo(Hierarchy* v2, Hierarchy* v1, CgroupLimit* limit) {
  if (!v2->member && !v1->member) return;  // nothing to look for
  sysfs::LineReader reader(kMountinfo);
  if (!reader.ok()) {
    note_problem(limit, "cannot read %s: %s", kMountinfo, std::strerror(reader.error()));
    return;
  }
  while (char* line = reader.next(nullptr)) {
    MountEntry m;
    if (!parse_mountinfo_line(line, &m)) continue;
    if (v2->member && std::strcmp(m.fstype, "cgroup2") == 0) {
      consider_mount(v2, m);
    } else if (v1->member && std::strcmp(m.fstype, "cgroup") == 0 &&
               has_token(m.super_options, std::strlen(m.super_options), "cpu")) {
      consider_mount(v1, m);
    }
  }
  if (reader.error() != 0)
    note_problem(limit, "cannot read %s: %s", kMountinfo, std::strerror(reader.error()));
}

// Reads dir/name into buf. `absent` means no limit at this level (the controller may not be
// enabled there); `failed` means unreadable, and a problem was noted.
enum class Read { ok, absent, failed };
Read read_value(const char* dir, const char* name, char* buf, size_t cap, CgroupLimit* limit) {
  char path[kCgroupPathCap + 32];
  base::Text(path).appendf("%s/%s", dir, name);
  if (sysfs::read_small_file(path, buf, cap) >= 0) return Read::ok;
  int err = errno;
  if (err == ENOENT) return Read::absent;
  note_problem(limit, "cannot read %s: %s", path,
               err == EFBIG ? "file too large for a cgroup value" : std::strerror(err));
  return Read::failed;
}

void note_bad_value(CgroupLimit* limit, const char* dir, const char* name, const char* why,
                    const char* text) {
  char quoted[48];
  base::Text(quoted).append_sanitized(text, 40);
  note_problem(limit, "%s/%s: %s ('%s')", dir, name, why, quoted);
}

// The limit set in one directory, if any. True with *quota/*period when there is one.
bool limit_at(CgroupVersion version, const char* dir, uint64_t* quota, uint64_t* period,
              CgroupLimit* limit) {
  char text[128];
  const char* why = "";
  if (version == CgroupVersion::v2) {
    if (read_value(dir, "cpu.max", text, sizeof(text), limit) != Read::ok) return false;
    Quota q = parse_cpu_max(text, quota, period, &why);
    if (q == Quota::invalid) note_bad_value(limit, dir, "cpu.max", why, text);
    return q == Quota::limit;
  }
  if (read_value(dir, "cpu.cfs_quota_us", text, sizeof(text), limit) != Read::ok) return false;
  Quota q = parse_cfs_quota(text, quota, &why);
  if (q == Quota::invalid) note_bad_value(limit, dir, "cpu.cfs_quota_us", why, text);
  if (q != Quota::limit) return false;
  Read r = read_value(dir, "cpu.cfs_period_us", text, sizeof(text), limit);
  if (r == Read::absent) note_problem(limit, "%s/cpu.cfs_period_us: missing", dir);
  if (r != Read::ok) return false;
  if (!parse_cfs_period(text, period, &why)) {
    note_bad_value(limit, dir, "cpu.cfs_period_us", why, text);
    return false;
  }
  return true;
}

// Walks from h's directory up to its mount point, keeping the tightest limit in *limit.
void walk_up(const Hierarchy& h, CgroupLimit* limit) {
  char dir[kCgroupPathCap];
  base::Text(dir).append(h.dir);
  size_t len = std::strlen(dir);
  for (;;) {
    uint64_t quota = 0, period = 0;
    if (limit_at(h.version, dir, &quota, &period, limit)) {
      POOLSHIM_LOG(debug, "budget: cgroup %s limit %llu/%llu at %s", version_name(h.version),
                   static_cast<unsigned long long>(quota), static_cast<unsigned long long>(period),
                   dir[0] ? dir : "/");
      if (limit->version == CgroupVersion::none ||
          tighter(quota, period, limit->quota, limit->period)) {
        limit->version = h.version;
        limit->quota = quota;
        limit->period = period;
        limit->cpus = quota_cpus(quota, period);
        base::Text(limit->dir).append(dir[0] ? dir : "/");
      }
    }
    if (len <= h.mount_len) break;
    // Up one level, never above the mount point.
    while (len > h.mount_len && dir[len - 1] != '/') --len;
    if (len > h.mount_len) --len;  // drop the '/' itself
    if (len < h.mount_len) len = h.mount_len;
    dir[len] = '\0';
  }
}

void note_checked(CgroupLimit* limit, const Hierarchy& h) {
  if (!h.member || !h.mounted) return;
  base::Text::after(limit->checked, sizeof(limit->checked))
      .appendf("%s%s %s%s", limit->checked[0] ? "; " : "", version_name(h.version),
               h.dir[0] ? h.dir : "/", h.inside_root ? "" : " (cgroup outside the mount's root)");
}

}  // namespace

CgroupLimit read_cgroup_limit() {
  CgroupLimit limit;
  Hierarchy v2;
  v2.version = CgroupVersion::v2;
  Hierarchy v1;
  v1.version = CgroupVersion::v1;
  read_proc_cgroup(&v2, &v1, &limit);
  read_mountinfo(&v2, &v1, &limit);
  for (const Hierarchy* h : {&v2, &v1}) {
    if (!h->member || !h->mounted) continue;
    note_checked(&limit, *h);
    walk_up(*h, &limit);
  }
  return limit;
}

void describe_limit(const CgroupLimit& limit, char* out, size_t cap) {
  base::Text text(out, cap);
  auto q = static_cast<unsigned long long>(limit.quota);
  auto p = static_cast<unsigned long long>(limit.period);
  if (limit.version == CgroupVersion::v2) {
    text.appendf("cgroup v2 cpu.max %llu %llu at %s", q, p, limit.dir);
  } else if (limit.version == CgroupVersion::v1) {
    text.appendf("cgroup v1 cpu.cfs_quota_us %llu cpu.cfs_period_us %llu at %s", q, p, limit.dir);
  }
}

void describe_detail(const CgroupLimit& limit, char* out, size_t cap) {
  base::Text text(out, cap);
  if (limit.version != CgroupVersion::none) {
    describe_limit(limit, out, cap);
    text = base::Text::after(out, cap);
    if (limit.problems > 0) text.appendf("; ignored: %s", limit.problem);
  } else if (limit.problems > 0) {
    text.appendf("no cgroup limit applied: %s", limit.problem);
  } else if (limit.checked[0] != '\0') {
    text.appendf("no cgroup cpu limit (checked %s and parents)", limit.checked);
  } else {
    text.append("no cgroup cpu limit (no cgroup hierarchy with the cpu controller mounted)");
  }
}

}  // namespace poolshim::budget
