// Gathering what `poolshim audit` judges: ELF files on disk, inside folders (recursively), inside
// wheels and other archives (read with libarchive, members judged in memory), and the modules
// mapped by a running process (/proc/PID/maps).
#pragma once
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "elf/verdict.h"

namespace poolshim::cli {

struct AuditEntry {
  std::string path;        // file path, "archive!member", or the path mapped in the process
  std::string soname;      // DT_SONAME or ""
  elf::ModuleVerdict verdict;
  bool readable = true;    // false: not judged (error says why)
  std::string error;       // what could not be read ("" when nothing)
};

struct ScanStats {
  size_t files = 0;        // regular files and archive members looked at
  size_t elf_files = 0;    // of which ELF
  size_t archives = 0;
  size_t errors = 0;       // inputs that could not be opened or read
};

class Scanner {
 public:
  // progress: called after each file (for the terminal progress line); may be empty.
  explicit Scanner(std::function<void(const ScanStats&)> progress) : progress_(std::move(progress)) {}

  // A file, folder or archive named on the command line. Returns false when it cannot be read
  // (the message went to stderr).
  bool scan_path(const std::string& path);
  // The modules mapped by process pid; the main executable is judged as such and its exported
  // entry points take precedence over the other modules (as in that process).
  bool scan_pid(long pid);

  const std::vector<AuditEntry>& entries() const { return entries_; }
  const ScanStats& stats() const { return stats_; }

 private:
  void scan_dir(const std::string& path, int depth);
  bool scan_file(const std::string& path, bool named);
  bool scan_archive(const std::string& path);
  // Judges an ELF image held in memory. is_main: the process's main executable (--pid).
  void judge_image(const std::string& display, const void* data, size_t size, bool is_main);
  void tick();

  std::function<void(const ScanStats&)> progress_;
  std::vector<AuditEntry> entries_;
  ScanStats stats_;
  std::set<std::pair<unsigned long, unsigned long>> seen_;  // (dev, ino) of files scanned
};

// Does this file start like an archive libarchive should open (zip/wheel, tar, ...)?
bool looks_like_archive(const std::string& path, const unsigned char* head, size_t n);

}  // namespace poolshim::cli
