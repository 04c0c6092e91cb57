// The affinity format of OpenMP 5.0 (omp_capture_affinity, omp_display_affinity,
// OMP_DISPLAY_AFFINITY, OMP_AFFINITY_FORMAT): "%" [ "0" ] [ "." ] [ size ] ( type | "{" name "}" ),
// with the types t team_num, T num_teams, L nesting_level, n thread_num, N num_threads,
// a ancestor_tnum, H host, P process_id, i native_thread_id, A thread_affinity, and "%%". Numbers
// pad with spaces on the right, with "." on the left, with "0." zeros after a sign or "0x";
// strings pad as numbers without zeros. As libgomp's affinity-fmt.c shows them (read for the
// choices): native_thread_id is pthread_self() in hex, thread_affinity a CPU list ("0-3,8").
#pragma once
#include <sched.h>
#include <stddef.h>

namespace poolshim::abi::openmp::runtime {
#pragma GCC visibility push(hidden)

// What the fields show for one thread.
struct AffinityInfo {
  int team_num = 0;
  int num_teams = 1;
  int level = 0;
  int thread_num = 0;
  int num_threads = 1;
  int ancestor_tnum = -1;
  unsigned long handle = 0;         // pthread_self()
  const cpu_set_t* cpus = nullptr;  // the thread's place's CPUs (or its mask); nullptr: none
};

// Writes `format` for `info` into buffer (at most size bytes, not terminated) and returns the
// length the whole text needs. A malformed field (libgomp stops the program on one) is written as
// it stands, and *malformed set.
size_t format_affinity(char* buffer, size_t size, const char* format, const AffinityInfo& info,
                       bool* malformed);

#pragma GCC visibility pop
}  // namespace poolshim::abi::openmp::runtime
