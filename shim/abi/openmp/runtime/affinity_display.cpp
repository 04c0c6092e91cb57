// omp_capture_affinity, omp_display_affinity (C and Fortran spellings) and OMP_DISPLAY_AFFINITY
// on the native runtime: the calling thread's team, level and place, in the affinity format
// (affinity_format.h). affinity-format-var stays libgomp's (omp_set_affinity_format and
// OMP_AFFINITY_FORMAT forward to it), read through omp_get_affinity_format.
//
// OMP_DISPLAY_AFFINITY: a member shows its line when it starts in a team and what the format's
// fields show changed since its thread last showed one (the specification's rule: the first
// region, then every change), on stderr in one write.
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi/openmp/runtime/affinity_format.h"
#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/libgomp.h"
#include "abi/openmp/runtime/places.h"
#include "abi/openmp/runtime/state.h"
#include "core/tls.h"
#include "diag/log.h"

namespace poolshim::abi::openmp::runtime {
namespace {

constexpr const char* kDefaultFormat = "level %L thread %i affinity %A";

// affinity-format-var, from libgomp (its default without one) into buf; returns buf. Looked up
// on every use: capture and display are not on any hot path.
const char* format_var(char* buf, size_t size) {
  using GetFormat = size_t (*)(char*, size_t);
  const auto get = reinterpret_cast<GetFormat>(real_function("omp_get_affinity_format", "OMP_5.0"));
  if (get == nullptr || get(buf, size) >= size) return kDefaultFormat;
  return buf;
}

// The calling thread's fields; mask: storage for its CPUs when it has no place.
AffinityInfo caller_info(cpu_set_t* mask) {
  ThreadState& s = me();
  AffinityInfo info;
  info.team_num = psn_omp_get_team_num();
  info.num_teams = psn_omp_get_num_teams();
  info.level = psn_omp_get_level();
  info.thread_num = static_cast<int>(s.num);
  info.num_threads = s.team ? static_cast<int>(s.team->n) : 1;
  info.ancestor_tnum = info.level > 0 ? psn_omp_get_ancestor_thread_num(info.level - 1) : -1;
  info.handle = static_cast<unsigned long>(pthread_self());
  info.cpus = place_cpus(s.place.place);
  if (info.cpus == nullptr && sched_getaffinity(0, sizeof *mask, mask) == 0) info.cpus = mask;
  return info;
}

size_t capture(char* buffer, size_t size, const char* format) {
  char var[1024];
  if (format == nullptr || *format == '\0') format = format_var(var, sizeof var);
  cpu_set_t mask;
  bool malformed = false;
  const size_t n = format_affinity(buffer, size, format, caller_info(&mask), &malformed);
  if (malformed)
    diag::warn_once(diag::LogSite::openmp_affinity_format,
                    "openmp: malformed field in affinity format \"%s\", shown as text", format);
  return n;
}

// The line for `format`, with a newline, on stderr in one write.
void display(const char* format) {
  char small[512];
  size_t n = capture(small, sizeof small - 1, format);
  char* line = n < sizeof small ? small : static_cast<char*>(malloc(n + 1));
  if (line == nullptr) return;
  if (line != small) capture(line, n, format);
  line[n] = '\n';
  ssize_t w = write(STDERR_FILENO, line, n + 1);
  (void)w;
  if (line != small) free(line);
}

// A Fortran string of len characters as a C string (malloc'ed; nullptr for none, or without
// memory: the format variable then serves).
char* c_string(const char* text, size_t len) {
  char* s = len ? static_cast<char*>(malloc(len + 1)) : nullptr;
  if (s != nullptr) {
    memcpy(s, text, len);
    s[len] = '\0';
  }
  return s;
}

// What the calling thread showed last (OMP_DISPLAY_AFFINITY).
struct Shown {
  int level = -1, thread_num = -1, num_threads = -1, team_num = -1, num_teams = -1, place = -2;
  bool operator!=(const Shown& o) const {
    return level != o.level || thread_num != o.thread_num || num_threads != o.num_threads ||
           team_num != o.team_num || num_teams != o.num_teams || place != o.place;
  }
};
POOLSHIM_FAST_TLS thread_local Shown t_shown;

}  // namespace

void display_affinity_if_changed() {
  if (!display_affinity_var()) return;
  const ThreadState& s = me();
  Shown now;
  now.level = psn_omp_get_level();
  now.thread_num = static_cast<int>(s.num);
  now.num_threads = s.team ? static_cast<int>(s.team->n) : 1;
  now.team_num = psn_omp_get_team_num();
  now.num_teams = psn_omp_get_num_teams();
  now.place = s.place.place;
  if (!(now != t_shown)) return;
  t_shown = now;
  display(nullptr);
}

}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

size_t psn_omp_capture_affinity(char* buffer, size_t size, const char* format) {
  const size_t n = capture(buffer, size, format);
  if (size > 0) buffer[n < size ? n : size - 1] = '\0';
  return n;
}

void psn_omp_display_affinity(const char* format) { display(format); }

// Fortran: the format is format_len characters (none: affinity-format-var); the buffer is
// blank-filled after the text.
int32_t psn_omp_capture_affinity_(char* buffer, const char* format, size_t buffer_len,
                                  size_t format_len) {
  char* fmt = c_string(format, format_len);
  const size_t n = capture(buffer, buffer_len, fmt);
  free(fmt);
  if (n < buffer_len) memset(buffer + n, ' ', buffer_len - n);
  return static_cast<int32_t>(n);
}

void psn_omp_display_affinity_(const char* format, size_t format_len) {
  char* fmt = c_string(format, format_len);
  display(fmt);
  free(fmt);
}

}  // extern "C"
