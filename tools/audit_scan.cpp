// Scanner: files, folders and processes. Archives are in audit_archive.cpp.
#include "audit_scan.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <algorithm>

#include "cli.h"
#include "elf/mapped_file.h"
#include "elf/reader.h"
#include "proc_view.h"

namespace poolshim::cli {
namespace {

constexpr int kMaxDepth = 64;  // folder recursion limit (symlinked folders are not followed)

bool is_elf(const void* data, size_t size) { return size >= 4 && memcmp(data, "\177ELF", 4) == 0; }

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool looks_like_archive(const std::string& path, const unsigned char* head, size_t n) {
  auto ends_with = [&](const char* suffix) {
    size_t len = strlen(suffix);
    return path.size() >= len && path.compare(path.size() - len, len, suffix) == 0;
  };
  if (n >= 4 && memcmp(head, "PK\3\4", 4) == 0) return true;  // zip, wheel, jar, apk
  return ends_with(".whl") || ends_with(".zip") || ends_with(".tar") || ends_with(".tar.gz") ||
         ends_with(".tgz") || ends_with(".tar.xz") || ends_with(".tar.bz2") ||
         ends_with(".tar.zst");
}

void Scanner::tick() {
  if (progress_) progress_(stats_);
}

void Scanner::fail(const std::string& path, const std::string& reason) {
  fprintf(stderr, "poolshim audit: %s: %s\n", printable(path).c_str(), reason.c_str());
  stats_.failures.push_back(Failure{path, reason});
}

void Scanner::judge_image(const std::string& display, const void* data, size_t size, bool is_main) {
  ++stats_.elf_files;
  AuditEntry e;
  e.path = display;
  elf::Reader r;
  r.open_file(data, size);
  e.verdict = reach::judge(r, is_main);
  e.kmpc = kmpc_facts(r);
  e.runtime = report::runtime_of(display.c_str());
  if (!r.ok()) {
    e.readable = false;
  } else if (const char* so = r.soname()) {
    e.soname = so;
    if (e.runtime == nullptr) e.runtime = report::runtime_of(so);
  }
  if (r.problems() != 0) {
    char buf[512];
    e.error = elf::describe_problems(r.problems(), buf, sizeof buf);
    // A file judged from part of its data may hide a copy: the scan is incomplete.
    fail(display,
         std::string(e.readable ? "ELF data read only in part (" : "not judged (") + e.error + ")");
  }
  entries_.push_back(std::move(e));
}

void Scanner::scan_path(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    fail(path, std::string("cannot read: ") + strerror(errno));
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    scan_dir(path, 0);
    return;
  }
  scan_file(path, true);
}

void Scanner::scan_dir(const std::string& path, int depth) {
  if (depth > kMaxDepth) {
    fail(path, "folders nested deeper than 64 levels; not searched");
    return;
  }
  DIR* d = opendir(path.c_str());
  if (d == nullptr) {
    fail(path, std::string("cannot list: ") + strerror(errno));
    return;
  }
  std::vector<std::string> names;
  while (dirent* ent = readdir(d)) {
    if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0)
      names.push_back(ent->d_name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());  // stable output whatever the file system's order
  std::string base = path.empty() || path.back() == '/' ? path : path + "/";
  for (const std::string& name : names) {
    std::string child = base + name;
    struct stat st;
    if (lstat(child.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      scan_dir(child, depth + 1);
    } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
      scan_file(child, false);  // a symlink to a folder is skipped there
    }
    // FIFOs, sockets and devices inside a folder are not modules: never opened.
  }
}

void Scanner::scan_file(const std::string& path, bool named) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ELOOP) {
      fail(path, "symbolic link loop; not read");
    } else if (named || errno != ENOENT) {  // a dangling symlink inside a folder is not an error
      fail(path, std::string("cannot read: ") + strerror(errno));
    }
    return;
  }
  if (S_ISDIR(st.st_mode)) return;  // a symlink to a folder inside a folder: not followed
  if (!S_ISREG(st.st_mode)) {
    // Named on the command line, a FIFO or device is an input the audit cannot judge (and it is
    // never opened: opening a FIFO for reading blocks until a writer comes).
    if (named) fail(path, std::string(file_type_text(st.st_mode)) + ", not a file; not read");
    return;
  }
  auto id =
      std::make_pair(static_cast<unsigned long>(st.st_dev), static_cast<unsigned long>(st.st_ino));
  if (!seen_.insert(id).second) return;  // reached before through a link
  ++stats_.files;
  if (st.st_size == 0) {
    if (named)
      fprintf(stderr, "poolshim audit: %s: empty file; nothing to judge\n",
              printable(path).c_str());
    tick();
    return;
  }
  elf::MappedFile m;  // opened without blocking: a FIFO swapped in after the stat is refused
  if (!m.open(path.c_str())) {
    fail(path, std::string("cannot read: ") + strerror(errno));
    return;
  }
  if (is_elf(m.data(), m.size())) {
    judge_image(path, m.data(), m.size(), false);
  } else if (looks_like_archive(path, static_cast<const unsigned char*>(m.data()), m.size())) {
    m.close();
    scan_archive(path);
  } else if (named) {
    fprintf(stderr, "poolshim audit: %s: not an ELF file or archive; skipped\n",
            printable(path).c_str());
  }
  tick();
}

// /proc/PID/maps, read whole once: every file-backed mapping of an ELF file is a loaded module.
// The process may exit while its modules are read: then the list is incomplete and says so.
void Scanner::scan_pid(long pid) {
  process_.pid = pid;
  ProcView proc;
  if (!proc.open(pid)) {
    fail("/proc/" + std::to_string(pid),
         std::string("no such process to read: ") + strerror(errno));
    process_.exited = true;
    return;
  }
  std::vector<Mapping> maps;
  std::string error;
  if (!proc.read_maps(&maps, &error)) {
    process_.exited = !proc.alive();
    if (process_.exited)
      fail("process " + std::to_string(pid),
           "exited before its modules could be read; nothing was judged");
    else
      fail("/proc/" + std::to_string(pid) + "/maps", error);
    return;
  }
  process_.exe = proc.exe();
  for (const char* var : {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"}) {
    ProcessFacts::RuntimeEnv v;
    v.var = var;
    v.set = proc.env(var, &v.value, &v.readable);
    process_.env.push_back(v);
  }
  process_.threads = proc.threads();

  for (const Mapping& mp : maps) {
    std::string source = proc.readable_source(mp);
    elf::MappedFile m;
    if (source.empty() || !m.open(source.c_str())) {
      if (!proc.alive()) break;  // reported once below
      fail(mp.path, std::string("mapped by process ") + std::to_string(pid) +
                        ", cannot read: " + strerror(errno));
      continue;
    }
    ++stats_.files;
    if (!is_elf(m.data(), m.size())) continue;  // a mapped data file (locale archive, fonts, ...)
    judge_image(mp.path, m.data(), m.size(), !process_.exe.empty() && mp.path == process_.exe);
    const AuditEntry& e = entries_.back();
    if (e.verdict.provider && !process_.shim_loaded) {
      process_.shim_loaded = true;
      process_.shim_path = mp.path;
    }
    for (unsigned k = 0; k < reach::kSurfaceCount; ++k)
      if (e.verdict.exports_entry[k] && process_.provider_of[k].empty())
        process_.provider_of[k] = base_name(mp.path);
    tick();
  }
  // Zombie or gone: maps of a zombie are empty, and a process that exited mid-scan leaves a
  // partial list. Either way the answer is incomplete.
  if (!proc.alive() || maps.empty()) {
    process_.exited = true;
    fail("process " + std::to_string(pid),
         "exited during the scan (or is a zombie); the list of its modules is incomplete");
  }
  // In one process the main executable's exported entry points come before the preload.
  const reach::ModuleVerdict* exe_verdict = nullptr;
  for (const AuditEntry& e : entries_)
    if (e.verdict.main_executable && e.path == process_.exe) exe_verdict = &e.verdict;
  if (exe_verdict != nullptr) {
    reach::ModuleVerdict exe_copy = *exe_verdict;
    for (AuditEntry& e : entries_) reach::apply_executable_precedence(&e.verdict, exe_copy);
  }
}

}  // namespace poolshim::cli
