// CPUs the process may run on: the affinity mask (what the scheduler will actually give us), and
// the online CPU list (for the report only; sizing from the host-wide count oversubscribes a
// pinned or containerised process).
#pragma once
#include <cstddef>
#include <sched.h>
#include <sys/types.h>

namespace poolshim::budget {

// sched_getaffinity's signature, so tests can stand in for the kernel (e.g. a 4096-CPU machine).
using GetAffinityFn = int (*)(pid_t pid, size_t setsize, cpu_set_t* set);

// CPUs in the calling thread's affinity mask (the process CPUs when they were set and fn is
// nullptr), or 0 when it cannot be read. The mask size is grown
// until the kernel accepts it (it refuses with EINVAL when its own mask is larger), so machines
// with more than CPU_SETSIZE (1024) CPUs are counted correctly. fn = nullptr uses the real
// sched_getaffinity.
size_t affinity_cpus(GetAffinityFn fn = nullptr);

// The CPUs the process may use when the OpenMP runtime pinned its initial thread before the shim
// could read the mask: with OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY asking for binding,
// libgomp's constructor (which runs before a preloaded library's code) builds its place list from
// the process's mask and binds the initial thread to the first place; LLVM's libomp does the same
// at its initialization, under OMP_PLACES even with OMP_PROC_BIND=false. The union of the
// runtime's places is then the process's CPUs: the budget counts them, and the shim's threads
// start on them (core/thread_start.cpp), not on the one place their creator was pinned to.
// nullptr otherwise (the threads' own masks are the process's). Found on first call, from the
// runtime the program already has (nothing is loaded; nothing runs at load time).
const cpu_set_t* process_cpus();
// Place `place` of libgomp's list as a CPU set, through libgomp's omp_get_place_num_procs and
// omp_get_place_proc_ids (CPUs past CPU_SETSIZE left out); empty when it has none.
void place_cpus_from(int (*procs)(int), void (*ids)(int, int*), int place, cpu_set_t* out);

// Number of CPUs in a kernel CPU list such as "0-3,8,10-11\n"; 0 for malformed text.
size_t parse_cpu_list(const char* text);

// Physical cores among the CPUs of the affinity mask (POOLSHIM_NUM_THREADS=cores): a CPU counts
// unless an SMT sibling of it with a lower number is in the mask too (the siblings come from
// /sys/devices/system/cpu/cpuN/topology/core_cpus_list, or thread_siblings_list on older kernels,
// as cpuinfo reads them). 0 when the mask or the topology cannot be read.
size_t physical_cores();

// CPUs in /sys/devices/system/cpu/online (read through the sysfs seam), falling back to
// sysconf(_SC_NPROCESSORS_ONLN); 0 when neither works.
size_t online_cpus();

}  // namespace poolshim::budget
