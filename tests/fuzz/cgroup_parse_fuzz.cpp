// libFuzzer target: the cgroup parsers (shim/budget/cgroup_parse.cpp). Input: the first byte picks
// the parser, the rest is its text (for relative_cgroup_path: cgroup path, '\n', mount root).
// Besides "no crash", checks each parser's promises: a limit has quota and period > 0,
// quota_cpus is at least 1, relative paths start with '/', pointers stay inside the input.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "budget/cgroup_parse.h"

using namespace poolshim::budget;

namespace {

bool inside(const char* p, const std::vector<char>& buf) {
  return p == nullptr || (p >= buf.data() && p < buf.data() + buf.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  uint8_t which = data[0] % 7;
  // Exactly sized, NUL-terminated heap copy of the text: ASan sees any read past its end.
  std::vector<char> buf(reinterpret_cast<const char*>(data) + 1,
                        reinterpret_cast<const char*>(data) + size);
  size_t len = buf.size();
  buf.push_back('\0');
  const char* why = nullptr;
  uint64_t quota = 0, period = 0;
  switch (which) {
    case 0: {
      ProcCgroupEntry e;
      if (parse_proc_cgroup_line(buf.data(), strnlen(buf.data(), len), &e)) {
        if (!inside(e.path, buf) || e.path + e.path_len > buf.data() + len) abort();
      }
      break;
    }
    case 1: {
      MountEntry m;
      if (parse_mountinfo_line(buf.data(), &m)) {
        if (!inside(m.root, buf) || !inside(m.mount_point, buf) || !inside(m.fstype, buf) ||
            !inside(m.super_options, buf))
          abort();
      }
      break;
    }
    case 2:
      unescape_octal(buf.data());
      if (strlen(buf.data()) > len) abort();
      break;
    case 3:
      if (parse_cpu_max(buf.data(), &quota, &period, &why) == Quota::limit) {
        if (quota == 0 || period == 0 || quota_cpus(quota, period) < 1) abort();
        if (tighter(quota, period, quota, period)) abort();  // strict: never tighter than itself
      }
      break;
    case 4:
      if (parse_cfs_quota(buf.data(), &quota, &why) == Quota::limit && quota == 0) abort();
      break;
    case 5:
      if (parse_cfs_period(buf.data(), &period, &why) && period == 0) abort();
      break;
    case 6: {
      char* nl = strchr(buf.data(), '\n');
      const char* root = "/";
      if (nl) {
        *nl = '\0';
        root = nl + 1;
      }
      for (size_t cap : {size_t{1}, size_t{2}, size_t{16}, size_t{4096}}) {
        std::vector<char> out(cap);
        relative_cgroup_path(buf.data(), root, out.data(), cap);
        if (strnlen(out.data(), cap) == cap) abort();
        if (cap > 1 && out[0] != '/') abort();
      }
      break;
    }
  }
  has_token(buf.data(), len, "cpu");
  return 0;
}
