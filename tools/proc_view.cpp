#include "proc_view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include <set>

namespace poolshim::cli {
namespace {

// Reads a whole /proc file relative to dirfd; false on error (errno set).
bool slurp_at(int dirfd, const char* name, std::string* out) {
  int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  out->clear();
  char buf[65536];
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      errno = e;
      return false;
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
    if (out->size() > (size_t{256} << 20)) break;  // bounded whatever /proc says
  }
  close(fd);
  return true;
}

}  // namespace

ProcView::~ProcView() {
  if (dirfd_ >= 0) close(dirfd_);
}

bool ProcView::open(long pid) {
  pid_ = pid;
  dir_ = "/proc/" + std::to_string(pid);
  dirfd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return dirfd_ >= 0;
}

bool ProcView::read_maps(std::vector<Mapping>* out, std::string* error) {
  std::string text;
  if (!slurp_at(dirfd_, "maps", &text)) {
    *error = std::string("cannot read ") + dir_ + "/maps: " + strerror(errno);
    return false;
  }
  std::set<std::string> done;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    char range[64], perms[8], dev[16];
    unsigned long long offset = 0, inode = 0;
    int path_at = 0;
    if (sscanf(line.c_str(), "%63s %7s %llx %15s %llu %n", range, perms, &offset, dev, &inode,
               &path_at) < 5)
      continue;
    if (inode == 0 || path_at <= 0 || static_cast<size_t>(path_at) >= line.size()) continue;
    std::string path = line.substr(static_cast<size_t>(path_at));
    const char kDeleted[] = " (deleted)";
    size_t dl = sizeof kDeleted - 1;
    if (path.size() > dl && path.compare(path.size() - dl, dl, kDeleted) == 0)
      path.resize(path.size() - dl);
    if (path.empty() || path[0] != '/' || !done.insert(path).second) continue;
    out->push_back(Mapping{range, path});
  }
  return true;
}

std::string ProcView::exe() const {
  char buf[PATH_MAX];
  ssize_t n = readlinkat(dirfd_, "exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string p(buf, static_cast<size_t>(n));
  const char kDeleted[] = " (deleted)";
  size_t dl = sizeof kDeleted - 1;
  if (p.size() > dl && p.compare(p.size() - dl, dl, kDeleted) == 0) p.resize(p.size() - dl);
  return p;
}

std::string ProcView::readable_source(const Mapping& m) const {
  std::string candidates[] = {dir_ + "/map_files/" + m.range, dir_ + "/root" + m.path, m.path};
  for (const std::string& c : candidates)
    if (access(c.c_str(), R_OK) == 0) return c;
  return "";
}

bool ProcView::env(const char* name, std::string* value, bool* readable) const {
  std::string text;
  *readable = slurp_at(dirfd_, "environ", &text);
  if (!*readable) return false;
  std::string key = std::string(name) + "=";
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\0', pos);
    if (end == std::string::npos) end = text.size();
    if (text.compare(pos, key.size(), key) == 0) {
      *value = text.substr(pos + key.size(), end - pos - key.size());
      return true;
    }
    pos = end + 1;
  }
  return false;
}

size_t ProcView::threads() const {
  std::string text;
  if (!slurp_at(dirfd_, "status", &text)) return 0;
  size_t at = text.find("\nThreads:");
  if (at == std::string::npos) return 0;
  return static_cast<size_t>(strtoull(text.c_str() + at + 9, nullptr, 10));
}

long ProcView::threads_named(const char* comm) const {
  int fd = dirfd_ < 0 ? -1 : openat(dirfd_, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  DIR* d = fdopendir(fd);
  if (d == nullptr) {
    close(fd);
    return -1;
  }
  std::string want = std::string(comm) + "\n", name;
  long n = 0;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    if (slurp_at(fd, (std::string(e->d_name) + "/comm").c_str(), &name) && name == want) ++n;
  }
  closedir(d);
  return n;
}

bool ProcView::alive() const {
  std::string stat;
  if (dirfd_ < 0 || !slurp_at(dirfd_, "stat", &stat)) return false;  // reaped: ESRCH
  // "pid (comm) S ppid pgrp session tty_nr tpgid flags ...": the fields follow the last ')'
  // (comm may hold anything).
  size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= stat.size()) return false;
  char state = stat[close_paren + 2];
  if (state == 'Z' || state == 'X' || state == 'x') return false;
  // A process inside exit() tears its mappings down before it becomes a zombie: its state is
  // still R or D then, but the kernel has set PF_EXITING (0x4) in its flags, the 7th field.
  unsigned long flags = 0;
  const char* p = stat.c_str() + close_paren + 2;
  for (int field = 0; field < 6 && p != nullptr; ++field) {
    p = strchr(p, ' ');
    if (p != nullptr) ++p;
  }
  if (p != nullptr && sscanf(p, "%lu", &flags) == 1 && (flags & 0x4u) != 0) return false;
  return true;
}

}  // namespace poolshim::cli
