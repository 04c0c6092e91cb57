// Gathering what `poolshim audit` judges: ELF files on disk, inside folders (recursively), inside
// wheels and other archives (read with libarchive as a stream, members spooled, never
// extracted), and the modules mapped by a running process (/proc/PID/maps). Whatever cannot be
// read is recorded as a failure with its path and reason: the scan is then incomplete (exit 2).
#pragma once
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "audit_kmpc.h"
#include "report/runtimes.h"
#include "reach/verdict.h"

namespace poolshim::cli {

struct AuditEntry {
  std::string path;    // file path, "archive!member", or the path mapped in the process
  std::string soname;  // DT_SONAME or ""
  reach::ModuleVerdict verdict;
  bool readable = true;                      // false: not judged (error says why)
  std::string error;                         // what could not be read ("" when nothing)
  const report::Runtime* runtime = nullptr;  // another runtime's pool (OpenMP, OpenBLAS, ...)
  KmpcFacts kmpc;  // LLVM's / Intel's OpenMP ABI: a client, a runtime copy
  // A client of a surface: it names the surface's symbols through the dynamic linker without
  // defining them, so its calls go wherever the process's lookup finds them first.
  bool client(unsigned surface) const {
    return readable && !verdict.provider &&
           verdict.surface[surface].verdict == reach::Verdict::absent &&
           verdict.surface[surface].uses_linker;
  }
  // A client of the __kmpc ABI (its OpenMP calls are judged here, not by the reach verdicts).
  bool kmpc_client() const { return readable && !verdict.provider && kmpc.client; }
  // A client of surface k by either ABI (OpenMP: libgomp's or the __kmpc one).
  bool client_of(unsigned k) const { return client(k) || (k == reach::kOpenmp && kmpc_client()); }
};

struct Failure {
  std::string path;
  std::string reason;
};

struct ScanStats {
  size_t files = 0;      // regular files and archive members looked at
  size_t elf_files = 0;  // of which ELF
  size_t archives = 0;
  std::vector<Failure> failures;  // inputs not read, or read only in part
};

// What --pid found out about the process itself.
struct ProcessFacts {
  long pid = 0;
  std::string exe;
  bool shim_loaded = false;  // libpoolshim (any module that provides the poolshim C API) is mapped
  std::string shim_path;
  bool exited = false;  // the process was gone (or a zombie) by the end of the scan
  // The module that defines each surface's entry point first in load order: where a client's
  // calls go when the shim is not loaded ("" when none).
  std::string provider_of[reach::kSurfaceCount];
  struct RuntimeEnv {
    std::string var;
    std::string value;
    bool set = false;
    bool readable = false;
  };
  std::vector<RuntimeEnv> env;  // OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, MKL_NUM_THREADS
  size_t threads = 0;
};

class Scanner {
 public:
  // progress: called after each file (for the terminal progress line); may be empty.
  explicit Scanner(std::function<void(const ScanStats&)> progress)
      : progress_(std::move(progress)) {}

  // A file, folder or archive named on the command line.
  void scan_path(const std::string& path);
  // The modules mapped by process pid; the main executable is judged as such and its exported
  // entry points take precedence over the other modules (as in that process).
  void scan_pid(long pid);

  const std::vector<AuditEntry>& entries() const { return entries_; }
  const ScanStats& stats() const { return stats_; }
  const ProcessFacts& process() const { return process_; }

 private:
  void scan_dir(const std::string& path, int depth);
  void scan_file(const std::string& path, bool named);
  void scan_archive(const std::string& path);
  // Judges an ELF image held in memory. is_main: the process's main executable (--pid).
  void judge_image(const std::string& display, const void* data, size_t size, bool is_main);
  // Prints "poolshim audit: PATH: REASON" and records the failure (the scan is incomplete).
  void fail(const std::string& path, const std::string& reason);
  void tick();

  std::function<void(const ScanStats&)> progress_;
  std::vector<AuditEntry> entries_;
  ScanStats stats_;
  ProcessFacts process_;
  std::set<std::pair<unsigned long, unsigned long>> seen_;  // (dev, ino) of files scanned
};

// Does this file start like an archive libarchive should open (zip/wheel, tar, ...)?
bool looks_like_archive(const std::string& path, const unsigned char* head, size_t n);

}  // namespace poolshim::cli
