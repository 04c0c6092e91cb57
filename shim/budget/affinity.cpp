// CPUs the process may run on: see affinity.h.
#include "budget/affinity.h"

#include <dlfcn.h>
#include <pthread.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "base/first_use.h"
#include "budget/sysfs.h"
#include "config/options.h"

namespace poolshim::budget {
namespace {

int real_getaffinity(pid_t pid, size_t setsize, cpu_set_t* set) {
  return sched_getaffinity(pid, setsize, set);
}

// Past this the kernel's answer is not believable; stop growing (2^22 CPUs = 512 KiB of mask).
constexpr size_t kMaxCpus = size_t{1} << 22;

}  // namespace

size_t physical_cores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return 0;  // > 1024 CPUs: not counted
  size_t cores = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mask)) continue;
    char path[96], list[512];
    bool first = true;  // no sibling below it in the mask
    const char* const kFiles[] = {"core_cpus_list", "thread_siblings_list"};
    ssize_t n = -1;
    for (const char* f : kFiles) {
      snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, f);
      if ((n = sysfs::read_small_file(path, list, sizeof list)) > 0) break;
    }
    if (n <= 0) return 0;  // no topology: the caller keeps the machine's budget
    // "0,32" or "0-1": ranges of CPU numbers.
    for (const char* p = list; *p != '\0' && first;) {
      char* end;
      long lo = strtol(p, &end, 10);
      if (end == p) break;
      long hi = lo;
      if (*end == '-') {
        p = end + 1;
        hi = strtol(p, &end, 10);
        if (end == p) break;
      }
      for (long c = lo; c <= hi && c < cpu; ++c)
        if (c >= 0 && CPU_ISSET(static_cast<int>(c), &mask)) first = false;
      p = *end == ',' ? end + 1 : end;
      if (*end != ',') break;
    }
    if (first) ++cores;
  }
  return cores;
}

namespace {

pthread_once_t g_process_once = PTHREAD_ONCE_INIT;
cpu_set_t g_process_cpus;  // zero until found: untouched, out of RSS
bool g_process_cpus_found = false;

// The OpenMP runtime's own function name@version: the next definition after the shim's
// (RTLD_NEXT), so the runtime the program has (libgomp, or LLVM's libomp, which exports libgomp's
// omp_* versions too), never the shim's exported row, never a new load.
template <typename Fn>
Fn runtime_function(const char* name, const char* version) {
  return reinterpret_cast<Fn>(dlvsym(RTLD_NEXT, name, version));
}

// Whether the calling thread's mask is a strict part of `all`: pinned within the places.
bool pinned_within(const cpu_set_t& all) {
  cpu_set_t mine, both;
  if (real_getaffinity(0, sizeof mine, &mine) != 0) return false;
  CPU_AND(&both, &all, &mine);
  return CPU_EQUAL(&both, &mine) && !CPU_EQUAL(&all, &mine);
}

// The union of the runtime's places when the runtime pinned the initial thread: libgomp does at
// its load when bind-var is not false; LLVM's libomp does at its initialization (its first call,
// which may be one of these) under OMP_PLACES even with OMP_PROC_BIND=false, so then the union
// counts only if the calling thread is pinned within it.
void find_process_cpus() {
  base::first_use("process_cpus");
  if (config::raw_value("OMP_PROC_BIND") == nullptr && config::raw_value("OMP_PLACES") == nullptr &&
      config::raw_value("GOMP_CPU_AFFINITY") == nullptr)
    return;
  auto bind = runtime_function<int (*)()>("omp_get_proc_bind", "OMP_4.0");
  auto count = runtime_function<int (*)()>("omp_get_num_places", "OMP_4.5");
  auto procs = runtime_function<int (*)(int)>("omp_get_place_num_procs", "OMP_4.5");
  auto ids = runtime_function<void (*)(int, int*)>("omp_get_place_proc_ids", "OMP_4.5");
  if (!bind || !count || !procs || !ids) return;
  const bool binds = bind() != 0;
  cpu_set_t all, one;
  CPU_ZERO(&all);
  for (int place = 0, places = count(); place < places; ++place) {
    place_cpus_from(procs, ids, place, &one);
    CPU_OR(&all, &all, &one);
  }
  if (CPU_COUNT(&all) == 0 || (!binds && !pinned_within(all))) return;
  g_process_cpus = all;
  g_process_cpus_found = true;
}

}  // namespace

void place_cpus_from(int (*procs)(int), void (*ids)(int, int*), int place, cpu_set_t* out) {
  CPU_ZERO(out);
  const int n = procs(place);
  if (n <= 0) return;
  int* list = static_cast<int*>(malloc(sizeof(int) * static_cast<size_t>(n)));
  if (list == nullptr) return;
  ids(place, list);
  for (int k = 0; k < n; ++k)
    if (list[k] >= 0 && list[k] < CPU_SETSIZE) CPU_SET(list[k], out);
  free(list);
}

const cpu_set_t* process_cpus() {
  pthread_once(&g_process_once, find_process_cpus);
  return g_process_cpus_found ? &g_process_cpus : nullptr;
}

size_t affinity_cpus(GetAffinityFn fn) {
  if (fn == nullptr) {
    if (const cpu_set_t* process = process_cpus()) return static_cast<size_t>(CPU_COUNT(process));
    fn = real_getaffinity;
  }
  // The common case needs no allocation: a cpu_set_t holds CPU_SETSIZE (1024) CPUs.
  cpu_set_t fixed;
  CPU_ZERO(&fixed);
  if (fn(0, sizeof(fixed), &fixed) == 0)
    return static_cast<size_t>(CPU_COUNT_S(sizeof(fixed), &fixed));
  if (errno != EINVAL) return 0;
  // EINVAL: the kernel's mask (nr_cpu_ids bits) is larger than ours. Double until it fits.
  for (size_t ncpus = 2 * CPU_SETSIZE; ncpus <= kMaxCpus; ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (set == nullptr) return 0;
    size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    int rc = fn(0, size, set);
    int err = errno;
    size_t count = rc == 0 ? static_cast<size_t>(CPU_COUNT_S(size, set)) : 0;
    CPU_FREE(set);
    if (rc == 0) return count;
    if (err != EINVAL) return 0;
  }
  return 0;
}

size_t parse_cpu_list(const char* text) {
  // Grammar (kernel bitmap_parselist): item (',' item)*, item = N | N '-' M, optional '\n'.
  const char* p = text;
  size_t count = 0;
  auto number = [&p](unsigned long* out) {
    if (*p < '0' || *p > '9') return false;
    unsigned long v = 0;
    for (; *p >= '0' && *p <= '9'; ++p) {
      if (v > kMaxCpus) return false;  // keeps v * 10 far from overflow
      v = v * 10 + static_cast<unsigned long>(*p - '0');
    }
    *out = v;
    return true;
  };
  for (;;) {
    unsigned long first = 0, last = 0;
    if (!number(&first)) return 0;
    last = first;
    if (*p == '-') {
      ++p;
      if (!number(&last) || last < first) return 0;
    }
    if (last > kMaxCpus) return 0;
    count += last - first + 1;
    if (*p == ',') {
      ++p;
      continue;
    }
    if (*p == '\n') ++p;
    return *p == '\0' ? count : 0;
  }
}

size_t online_cpus() {
  char text[4096];
  if (sysfs::read_small_file("/sys/devices/system/cpu/online", text, sizeof(text)) > 0) {
    size_t n = parse_cpu_list(text);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

}  // namespace poolshim::budget
