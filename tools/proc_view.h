// A running process as /proc shows it, for `audit --pid` and `info --pid`: its mapped files, its
// environment (when readable), and whether it is still the same live process. /proc/PID is
// opened once as a directory and everything is read relative to it, so a process that exits
// and a new one that reuses its id are never mixed up (reads through the old directory fail).
#pragma once
#include <string>
#include <vector>

namespace poolshim::cli {

struct Mapping {
  std::string range;  // "start-end", the name of its /proc/PID/map_files entry
  std::string path;   // as /proc/PID/maps shows it, " (deleted)" removed
};

class ProcView {
 public:
  ~ProcView();
  // Opens /proc/PID; false (errno set) when there is no such process or it cannot be read.
  bool open(long pid);
  long pid() const { return pid_; }

  // Reads /proc/PID/maps whole, once. Every file-backed mapping, each path once, in map order.
  // False when maps cannot be read (the process is gone, or not ours to read).
  bool read_maps(std::vector<Mapping>* out, std::string* error);
  // The main executable's path ("" when unknown: a zombie, a kernel thread).
  std::string exe() const;
  // Opens a mapped file for reading: /proc/PID/map_files/<range> when allowed (deleted or replaced
  // files read as mapped), else PATH under /proc/PID/root, else PATH. Returns a path to pass to
  // MappedFile::open, or "" when none can be read.
  std::string readable_source(const Mapping& m) const;
  // The value of NAME in the process's environment; false when unset or when the environment
  // cannot be read (*readable tells which).
  bool env(const char* name, std::string* value, bool* readable) const;
  // Threads in the process (/proc/PID/status), 0 when unknown.
  size_t threads() const;
  // Threads whose name (/proc/PID/task/TID/comm) is comm exactly: "poolshim" for the pool's
  // workers, "poolshim-team" for OpenMP team threads started beyond the budget (core/gang.h);
  // -1 when the tasks cannot be read.
  long threads_named(const char* comm) const;
  // Still alive and the same process: false once it has begun to exit (zombie included).
  bool alive() const;

 private:
  long pid_ = 0;
  int dirfd_ = -1;
  std::string dir_;  // "/proc/PID"
};

}  // namespace poolshim::cli
