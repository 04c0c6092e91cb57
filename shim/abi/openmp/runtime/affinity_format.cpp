// The affinity format's expansion (affinity_format.h).
#include "abi/openmp/runtime/affinity_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace poolshim::abi::openmp::runtime {
namespace {

// Text written into a buffer of `size` bytes; len counts all of it, written or not.
struct Out {
  char* buf;
  size_t size;
  size_t len = 0;
  void put(const char* s, size_t n) {
    for (size_t i = 0; i < n; ++i, ++len)
      if (len < size) buf[len] = s[i];
  }
  void repeat(char c, size_t n) {
    for (size_t i = 0; i < n; ++i) put(&c, 1);
  }
};

// A field's padding: its width (0: none), zeros after a sign or "0x", or spaces on the left.
struct Pad {
  size_t width = 0;
  bool zero = false;
  bool right = false;
};

void put_padded(Out* out, const char* s, const Pad& pad, bool number) {
  const size_t n = strlen(s);
  if (pad.width <= n) return out->put(s, n);
  const size_t fill = pad.width - n;
  if (number && pad.zero) {
    const size_t sign = s[0] == '-' ? 1 : (s[0] == '0' && s[1] == 'x') ? 2 : 0;
    out->put(s, sign);
    out->repeat('0', fill);
    out->put(s + sign, n - sign);
  } else if (pad.right) {
    out->repeat(' ', fill);
    out->put(s, n);
  } else {
    out->put(s, n);
    out->repeat(' ', fill);
  }
}

// A CPU set as a list of ranges ("0-3,8"); "" for none.
void cpu_list(const cpu_set_t* cpus, char* text, size_t size) {
  size_t used = 0;
  text[0] = '\0';
  if (cpus == nullptr) return;
  for (int c = 0; c < CPU_SETSIZE && used + 24 < size; ++c) {
    if (!CPU_ISSET(c, cpus)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, cpus)) ++last;
    used += static_cast<size_t>(
        last == c ? snprintf(text + used, size - used, "%s%d", used ? "," : "", c)
                  : snprintf(text + used, size - used, "%s%d-%d", used ? "," : "", c, last));
    c = last;
  }
}

const struct {
  const char* name;
  char type;
} kLongNames[] = {{"team_num", 't'},       {"num_teams", 'T'},   {"nesting_level", 'L'},
                  {"thread_num", 'n'},     {"num_threads", 'N'}, {"ancestor_tnum", 'a'},
                  {"host", 'H'},           {"process_id", 'P'},  {"native_thread_id", 'i'},
                  {"thread_affinity", 'A'}};

// The type at p ("x" or "{name}"), advancing p past it; 0 when unknown.
char read_type(const char** p) {
  if (**p != '{') return *(*p)++;
  for (const auto& k : kLongNames) {
    const size_t n = strlen(k.name);
    if (strncmp(*p + 1, k.name, n) == 0 && (*p)[n + 1] == '}') {
      *p += n + 2;
      return k.type;
    }
  }
  return 0;
}

// Writes one field of type `type`; false when the type is unknown.
bool put_field(Out* out, char type, const Pad& pad, const AffinityInfo& info) {
  char text[4096];
  int value;
  switch (type) {
    case 't': value = info.team_num; break;
    case 'T': value = info.num_teams; break;
    case 'L': value = info.level; break;
    case 'n': value = info.thread_num; break;
    case 'N': value = info.num_threads; break;
    case 'a': value = info.ancestor_tnum; break;
    case 'P': value = static_cast<int>(getpid()); break;
    case 'i':
      snprintf(text, sizeof text, "0x%lx", info.handle);
      put_padded(out, text, pad, true);
      return true;
    case 'H': {
      struct utsname u;
      put_padded(out, uname(&u) == 0 ? u.nodename : "node", pad, false);
      return true;
    }
    case 'A':
      cpu_list(info.cpus, text, sizeof text);
      put_padded(out, text, pad, false);
      return true;
    default: return false;
  }
  snprintf(text, sizeof text, "%d", value);
  put_padded(out, text, pad, true);
  return true;
}

}  // namespace

size_t format_affinity(char* buffer, size_t size, const char* format, const AffinityInfo& info,
                       bool* malformed) {
  Out out{buffer, size};
  for (const char* p = format; *p != '\0';) {
    if (*p != '%') {
      out.put(p++, 1);
      continue;
    }
    const char* field = p++;
    if (*p == '%') {
      out.put(p++, 1);
      continue;
    }
    Pad pad;
    pad.zero = *p == '0' && p[1] == '.';
    if (pad.zero) ++p;
    pad.right = *p == '.';
    if (pad.right) ++p;
    if (*p >= '1' && *p <= '9') pad.width = strtoul(p, const_cast<char**>(&p), 10);
    const bool needs_width = (pad.zero || pad.right) && pad.width == 0;
    const char type = needs_width ? 0 : read_type(&p);
    if (type == 0 || !put_field(&out, type, pad, info)) {
      *malformed = true;
      out.put(field, 1);  // the '%', then the rest as text
      p = field + 1;
    }
  }
  return out.len;
}

}  // namespace poolshim::abi::openmp::runtime
