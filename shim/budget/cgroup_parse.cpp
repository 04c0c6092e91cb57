// Pure parsers for cgroup text: see cgroup_parse.h.
#include "budget/cgroup_parse.h"

#include <cstring>

namespace poolshim::budget {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

const char* skip_spaces(const char* p) {
  while (is_space(*p)) ++p;
  return p;
}

// Strict unsigned decimal: at least one digit, no sign, no overflow. Advances *p past the digits.
bool parse_u64(const char** p, uint64_t* out, const char** why) {
  const char* s = *p;
  if (*s < '0' || *s > '9') {
    *why = "not a number";
    return false;
  }
  uint64_t v = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    uint64_t d = static_cast<uint64_t>(*s - '0');
    if (v > (UINT64_MAX - d) / 10) {
      *why = "number too large";
      return false;
    }
    v = v * 10 + d;
  }
  *p = s;
  *out = v;
  return true;
}

// After the last field only whitespace (the trailing newline) may follow.
bool at_end(const char* p, const char** why) {
  if (*skip_spaces(p) != '\0') {
    *why = "unexpected text after the value";
    return false;
  }
  return true;
}

// Splits off the next space-separated field of a mountinfo line, NUL-terminating it.
char* next_field(char** cursor) {
  char* p = *cursor;
  if (p == nullptr || *p == '\0') return nullptr;
  char* sp = std::strchr(p, ' ');
  if (sp != nullptr) {
    *sp = '\0';
    *cursor = sp + 1;
  } else {
    *cursor = p + std::strlen(p);
  }
  return p;
}

}  // namespace

bool has_token(const char* list, size_t len, const char* token) {
  size_t tlen = std::strlen(token);
  const char* end = list + len;
  const char* p = list;
  while (p <= end) {
    const char* comma = static_cast<const char*>(std::memchr(p, ',', static_cast<size_t>(end - p)));
    const char* item_end = comma ? comma : end;
    if (static_cast<size_t>(item_end - p) == tlen && std::memcmp(p, token, tlen) == 0) return true;
    if (!comma) break;
    p = comma + 1;
  }
  return false;
}

bool parse_proc_cgroup_line(const char* line, size_t len, ProcCgroupEntry* out) {
  const char* end = line + len;
  const char* c1 = static_cast<const char*>(std::memchr(line, ':', len));
  if (c1 == nullptr) return false;
  const char* c2 =
      static_cast<const char*>(std::memchr(c1 + 1, ':', static_cast<size_t>(end - c1 - 1)));
  if (c2 == nullptr) return false;
  // The path is everything after the second ':' (a path may itself contain ':').
  const char* path = c2 + 1;
  size_t path_len = static_cast<size_t>(end - path);
  while (path_len > 0 && is_space(path[path_len - 1])) --path_len;
  if (path_len == 0 || path[0] != '/') return false;
  const char* controllers = c1 + 1;
  size_t controllers_len = static_cast<size_t>(c2 - controllers);
  bool hierarchy_zero = (c1 - line == 1 && line[0] == '0');
  *out = ProcCgroupEntry{};
  out->v2 = hierarchy_zero && controllers_len == 0;
  out->cpu = !out->v2 && has_token(controllers, controllers_len, "cpu");
  out->path = path;
  out->path_len = path_len;
  return true;
}

void unescape_octal(char* s) {
  char* w = s;
  for (char* r = s; *r != '\0';) {
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' &&
        r[3] <= '7') {
      *w++ = static_cast<char>(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
      r += 4;
    } else {
      *w++ = *r++;
    }
  }
  *w = '\0';
}

bool parse_mountinfo_line(char* line, MountEntry* out) {
  char* cursor = line;
  // id, parent id, major:minor, root, mount point, mount options
  char* fields[6];
  for (char*& f : fields) {
    f = next_field(&cursor);
    if (f == nullptr) return false;
  }
  // Zero or more optional fields ("shared:1", "master:2", ...), then a lone "-".
  for (;;) {
    char* f = next_field(&cursor);
    if (f == nullptr) return false;
    if (f[0] == '-' && f[1] == '\0') break;
  }
  char* fstype = next_field(&cursor);
  char* source = next_field(&cursor);
  char* super_options = next_field(&cursor);
  if (fstype == nullptr || source == nullptr || super_options == nullptr) return false;
  unescape_octal(fields[3]);
  unescape_octal(fields[4]);
  out->root = fields[3];
  out->mount_point = fields[4];
  out->fstype = fstype;
  out->super_options = super_options;
  return true;
}

Quota parse_cpu_max(const char* text, uint64_t* quota, uint64_t* period, const char** why) {
  const char* p = skip_spaces(text);
  bool unlimited = false;
  uint64_t q = 0;
  if (std::strncmp(p, "max", 3) == 0) {
    unlimited = true;
    p += 3;
  } else if (!parse_u64(&p, &q, why)) {
    return Quota::invalid;
  }
  if (*p != ' ' && *p != '\t') {
    // The kernel always prints both fields; "max" alone would still mean no limit.
    if (unlimited && at_end(p, why)) return Quota::unlimited;
    *why = *p == '\0' || is_space(*p) ? "missing period" : "malformed quota";
    return Quota::invalid;
  }
  p = skip_spaces(p);
  uint64_t per = 0;
  if (!parse_u64(&p, &per, why) || !at_end(p, why)) return Quota::invalid;
  if (per == 0) {
    *why = "zero period";
    return Quota::invalid;
  }
  if (unlimited) return Quota::unlimited;
  if (q == 0) {
    *why = "zero quota";
    return Quota::invalid;
  }
  *quota = q;
  *period = per;
  return Quota::limit;
}

Quota parse_cfs_quota(const char* text, uint64_t* quota, const char** why) {
  const char* p = skip_spaces(text);
  if (p[0] == '-' && p[1] == '1' && (p[2] == '\0' || is_space(p[2]))) {
    return at_end(p + 2, why) ? Quota::unlimited : Quota::invalid;
  }
  uint64_t q = 0;
  if (!parse_u64(&p, &q, why) || !at_end(p, why)) return Quota::invalid;
  if (q == 0) {
    *why = "zero quota";
    return Quota::invalid;
  }
  *quota = q;
  return Quota::limit;
}

bool parse_cfs_period(const char* text, uint64_t* period, const char** why) {
  const char* p = skip_spaces(text);
  uint64_t v = 0;
  if (!parse_u64(&p, &v, why) || !at_end(p, why)) return false;
  if (v == 0) {
    *why = "zero period";
    return false;
  }
  *period = v;
  return true;
}

size_t quota_cpus(uint64_t quota, uint64_t period) {
  if (period == 0) return 1;
  // q/p + (q%p != 0) never overflows, unlike (q + p - 1) / p.
  uint64_t n = quota / period + (quota % period != 0 ? 1 : 0);
  if (n == 0) n = 1;
  if (n > SIZE_MAX) n = SIZE_MAX;
  return static_cast<size_t>(n);
}

bool tighter(uint64_t quota_a, uint64_t period_a, uint64_t quota_b, uint64_t period_b) {
  // qa/pa < qb/pb  <=>  qa*pb < qb*pa (periods > 0); 128-bit products cannot overflow.
  unsigned __int128 lhs = static_cast<unsigned __int128>(quota_a) * period_b;
  unsigned __int128 rhs = static_cast<unsigned __int128>(quota_b) * period_a;
  return lhs < rhs;
}

bool relative_cgroup_path(const char* cgroup_path, const char* mount_root, char* out, size_t cap) {
  auto set = [&](const char* s) {
    size_t n = std::strlen(s);
    if (n + 1 > cap) return false;
    std::memcpy(out, s, n + 1);
    return true;
  };
  if (cap < 2) return false;
  // A path with ".." components means the process sits outside its cgroup namespace's root
  // (it was moved after the namespace was created): we cannot see its directory.
  if (std::strstr(cgroup_path, "/..") != nullptr) {
    set("/");
    return false;
  }
  size_t root_len = std::strlen(mount_root);
  while (root_len > 0 && mount_root[root_len - 1] == '/') --root_len;  // "/" -> ""
  if (root_len == 0) {
    // Only a path that starts with '/' (found by scripts/fuzz.sh: "abc" came back as is, and
    // the caller would have read "<mount point>abc").
    if (cgroup_path[0] == '/' && set(cgroup_path)) return true;
    set("/");
    return false;
  }
  if (std::strncmp(cgroup_path, mount_root, root_len) == 0) {
    const char* rest = cgroup_path + root_len;
    if (*rest == '\0') return set("/");
    if (*rest == '/' && set(rest)) return true;
  }
  set("/");
  return false;
}

}  // namespace poolshim::budget
