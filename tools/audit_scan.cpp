// Scanner: files, folders and processes. Archives are in audit_archive.cpp.
#include "audit_scan.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "elf/mapped_file.h"
#include "elf/reader.h"

namespace poolshim::cli {
namespace {

constexpr int kMaxDepth = 64;  // folder recursion limit (symlinked folders are not followed)

bool is_elf(const elf::MappedFile& m) {
  return m.size() >= 4 && memcmp(m.data(), "\177ELF", 4) == 0;
}

}  // namespace

bool looks_like_archive(const std::string& path, const unsigned char* head, size_t n) {
  auto ends_with = [&](const char* suffix) {
    size_t len = strlen(suffix);
    return path.size() >= len && path.compare(path.size() - len, len, suffix) == 0;
  };
  if (n >= 4 && memcmp(head, "PK\3\4", 4) == 0) return true;  // zip, wheel, jar, apk
  return ends_with(".whl") || ends_with(".zip") || ends_with(".tar") || ends_with(".tar.gz") ||
         ends_with(".tgz") || ends_with(".tar.xz") || ends_with(".tar.bz2") || ends_with(".tar.zst");
}

void Scanner::tick() {
  if (progress_) progress_(stats_);
}

void Scanner::judge_image(const std::string& display, const void* data, size_t size, bool is_main) {
  ++stats_.elf_files;
  AuditEntry e;
  e.path = display;
  elf::Reader r;
  r.open_file(data, size);
  e.verdict = elf::judge(r, is_main);
  if (!r.ok()) {
    e.readable = false;
  } else if (const char* so = r.soname()) {
    e.soname = so;
  }
  if (r.problems() != 0) {
    char buf[512];
    e.error = elf::describe_problems(r.problems(), buf, sizeof buf);
  }
  entries_.push_back(std::move(e));
}

bool Scanner::scan_path(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    fprintf(stderr, "poolshim audit: cannot read %s: %s\n", path.c_str(), strerror(errno));
    ++stats_.errors;
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    scan_dir(path, 0);
    return true;
  }
  return scan_file(path, true);
}

void Scanner::scan_dir(const std::string& path, int depth) {
  if (depth > kMaxDepth) return;
  DIR* d = opendir(path.c_str());
  if (d == nullptr) {
    fprintf(stderr, "poolshim audit: cannot list %s: %s\n", path.c_str(), strerror(errno));
    ++stats_.errors;
    return;
  }
  std::vector<std::string> names;
  while (dirent* ent = readdir(d)) {
    if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0) names.push_back(ent->d_name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());  // stable output whatever the file system's order
  std::string base = path.empty() || path.back() == '/' ? path : path + "/";
  for (const std::string& name : names) {
    std::string child = base + name;
    struct stat st;
    if (lstat(child.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) scan_dir(child, depth + 1);
    else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) scan_file(child, false);
  }
}

bool Scanner::scan_file(const std::string& path, bool named) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (named || errno != ENOENT) {  // a dangling symlink inside a folder is not an error
      fprintf(stderr, "poolshim audit: cannot read %s: %s\n", path.c_str(), strerror(errno));
      ++stats_.errors;
    }
    return false;
  }
  if (!S_ISREG(st.st_mode)) return true;  // symlink to a folder, fifo, device: skipped
  auto id = std::make_pair(static_cast<unsigned long>(st.st_dev), static_cast<unsigned long>(st.st_ino));
  if (!seen_.insert(id).second) return true;  // reached before through a link
  ++stats_.files;
  if (st.st_size == 0) return true;
  elf::MappedFile m;
  if (!m.open(path.c_str())) {
    fprintf(stderr, "poolshim audit: cannot read %s: %s\n", path.c_str(), strerror(errno));
    ++stats_.errors;
    return false;
  }
  bool ok = true;
  if (is_elf(m)) {
    judge_image(path, m.data(), m.size(), false);
  } else if (looks_like_archive(path, static_cast<const unsigned char*>(m.data()), m.size())) {
    m.close();
    ok = scan_archive(path);
  } else if (named) {
    fprintf(stderr, "poolshim audit: %s: not an ELF file or archive; skipped\n", path.c_str());
  }
  tick();
  return ok;
}

// /proc/PID/maps: "start-end perms offset dev inode path". Every file-backed mapping of an ELF
// file is a loaded module; each is read from /proc/PID/map_files/<range> when allowed (that
// also works for deleted or replaced files), else from its path under /proc/PID/root.
bool Scanner::scan_pid(long pid) {
  std::string proc = "/proc/" + std::to_string(pid);
  std::ifstream maps(proc + "/maps");
  if (!maps) {
    fprintf(stderr, "poolshim audit: cannot read %s/maps: %s\n", proc.c_str(), strerror(errno));
    ++stats_.errors;
    return false;
  }
  char exe[PATH_MAX];
  ssize_t n = readlink((proc + "/exe").c_str(), exe, sizeof exe - 1);
  std::string exe_path = n > 0 ? std::string(exe, static_cast<size_t>(n)) : "";

  std::set<std::string> done;
  std::string line;
  while (std::getline(maps, line)) {
    char range[64], perms[8], dev[16];
    unsigned long long offset = 0, inode = 0;
    int path_at = 0;
    if (sscanf(line.c_str(), "%63s %7s %llx %15s %llu %n", range, perms, &offset, dev, &inode, &path_at) < 5) continue;
    if (inode == 0 || path_at <= 0 || static_cast<size_t>(path_at) >= line.size()) continue;
    std::string path = line.substr(static_cast<size_t>(path_at));
    if (path.empty() || path[0] != '/' || !done.insert(path).second) continue;
    const char kDeleted[] = " (deleted)";
    std::string clean = path;
    if (clean.size() > sizeof kDeleted - 1 && clean.compare(clean.size() - (sizeof kDeleted - 1), std::string::npos, kDeleted) == 0)
      clean.resize(clean.size() - (sizeof kDeleted - 1));

    std::string sources[] = {proc + "/map_files/" + range, proc + "/root" + clean, clean};
    elf::MappedFile m;
    bool opened = false;
    for (const std::string& s : sources)
      if ((opened = m.open(s.c_str()))) break;
    if (!opened) {
      fprintf(stderr, "poolshim audit: cannot read %s (mapped by %ld): %s\n", clean.c_str(), pid, strerror(errno));
      ++stats_.errors;
      continue;
    }
    ++stats_.files;
    if (!is_elf(m)) continue;  // a mapped data file (locale archive, fonts, ...)
    judge_image(path, m.data(), m.size(), !exe_path.empty() && clean == exe_path);
    tick();
  }
  // In one process the main executable's exported entry points come before the preload.
  const elf::ModuleVerdict* exe_verdict = nullptr;
  for (const AuditEntry& e : entries_)
    if (e.verdict.main_executable && e.path == exe_path) exe_verdict = &e.verdict;
  if (exe_verdict != nullptr) {
    elf::ModuleVerdict exe_copy = *exe_verdict;
    for (AuditEntry& e : entries_) elf::apply_executable_precedence(&e.verdict, exe_copy);
  }
  return true;
}

}  // namespace poolshim::cli
