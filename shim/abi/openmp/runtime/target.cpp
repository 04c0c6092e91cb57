// Native target constructs: the host fallback, as libgomp runs them with no offload
// device (its target.c, read for the semantics: gomp_target_fallback, GOMP_target_ext, the data
// constructs' fallbacks).
//
// - A target region's body runs on the encountering thread as a new initial thread: its state is
//   set aside and replaced by a fresh one (no team: omp_get_level() 0, omp_in_parallel() false;
//   the ICVs from the environment, not the caller's; no teams place) with thread-limit-var from
//   the region's thread_limit argument; it is restored afterwards. Firstprivate data
//   (GOMP_MAP_FIRSTPRIVATE) is copied first and the body gets the copy, as libgomp does.
// - nowait: the region becomes a task (GOMP_task of the native runtime: whatever it does with
//   depend and deferral, a target task gets too); the task owns copies of hostaddrs and of the
//   firstprivate data, as libgomp's gomp_create_target_task. depend without nowait: the thread
//   waits for the dependences first (GOMP_taskwait_depend: libgomp's
//   gomp_task_maybe_wait_for_dependencies).
// - target data, target update, target enter/exit data: nothing to map on the host; their depend
//   clauses are waited for (a data task with no work orders nothing but its dependences).
// - default-device-var (omp_set_default_device, OMP_DEFAULT_DEVICE) is a native ICV: a region's
//   members inherit it, a target region starts from the environment's.
//
// When libgomp has an offload device, or OMP_TARGET_OFFLOAD=mandatory asks for one, every target
// row forwards to libgomp (which offloads, or fails as it must), except a target region that
// asked for the host itself (if(false): GOMP_DEVICE_HOST_FALLBACK), which runs here.
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/libgomp.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "config/options.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// gomp-constants.h.
constexpr int kDeviceIcv = -1;
constexpr int kDeviceHostFallback = -2;
constexpr unsigned kTargetFlagNowait = 1u << 0;
constexpr unsigned kTaskFlagDepend = 1u << 3;
constexpr unsigned char kMapFirstprivate = 0x0c;  // GOMP_MAP_FLAG_SPECIAL | 0
constexpr intptr_t kArgDeviceMask = (1 << 7) - 1;
constexpr intptr_t kArgDeviceAll = 0;
constexpr intptr_t kArgSubsequentParam = 1 << 7;
constexpr intptr_t kArgIdMask = ((1 << 8) - 1) << 8;
constexpr intptr_t kArgThreadLimit = 2 << 8;
constexpr int kArgValueShift = 16;

// Whether every target construct runs on the host here: libgomp has no device and
// OMP_TARGET_OFFLOAD is not mandatory. Asked once (libgomp's omp_get_num_devices loads its
// plugins, as its first target construct would).
bool g_host_only = true;
pthread_once_t g_once = PTHREAD_ONCE_INIT;

void probe() {
  const char* off = config::raw_value("OMP_TARGET_OFFLOAD");
  if (off != nullptr) {
    while (*off == ' ' || (*off >= '\t' && *off <= '\r')) ++off;
    if (strncasecmp(off, "mandatory", 9) == 0) g_host_only = false;
  }
  if (g_host_only)
    if (auto f = reinterpret_cast<int (*)()>(real_function("omp_get_num_devices", "OMP_4.0")))
      g_host_only = f() <= 0;
}

bool host_only() {
  pthread_once(&g_once, probe);
  return g_host_only;
}

template <typename Fn>
Fn real(const char* name, const char* version) {
  return reinterpret_cast<Fn>(real_function(name, version));
}

// The device a construct forwarded to libgomp names: default-device-var is ours.
int device_for_libgomp(int device) { return device == kDeviceIcv ? icv().default_device : device; }

// thread-limit-var for the region from its args (libgomp: the first THREAD_LIMIT for all
// devices; 0: keep the environment's).
intptr_t thread_limit_arg(void** args) {
  if (args == nullptr) return 0;
  while (*args != nullptr) {
    intptr_t id = reinterpret_cast<intptr_t>(*args++), val;
    if (id & kArgSubsequentParam)
      val = reinterpret_cast<intptr_t>(*args++);
    else
      val = id >> kArgValueShift;
    if ((id & kArgDeviceMask) != kArgDeviceAll) continue;
    if ((id & kArgIdMask) != kArgThreadLimit) continue;
    return val > INT32_MAX ? INT32_MAX : val;
  }
  return 0;
}

// nthreads-var of a new initial thread: libgomp's global one, OMP_NUM_THREADS's first value, else
// the CPUs of the affinity mask (libgomp's gomp_init_num_threads; the native default is the
// shim's budget, which only POOLSHIM_NUM_THREADS or a cgroup quota makes differ).
unsigned g_initial_nthreads = 1;
pthread_once_t g_nthreads_once = PTHREAD_ONCE_INIT;
void load_initial_nthreads() {
  g_initial_nthreads = global_icv().nthreads;
  if (config::raw_value("OMP_NUM_THREADS") != nullptr) return;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    g_initial_nthreads = static_cast<unsigned>(CPU_COUNT(&set));
}

// The body on this thread as a new initial thread (gomp_target_fallback).
void run_fallback(void (*fn)(void*), void** hostaddrs, intptr_t thread_limit) {
  pthread_once(&g_nthreads_once, load_initial_nthreads);
  ThreadState& s = me();
  ThreadState saved = s;
  s = ThreadState{};
  s.icv = global_icv();
  s.icv.nthreads = g_initial_nthreads;
  s.icv_ready = true;
  s.target_fallback = true;
  if (thread_limit != 0) s.icv.thread_limit = static_cast<unsigned>(thread_limit);
  fn(hostaddrs);
  s = saved;
}

// Firstprivate data: its size with alignment padding (0: none) and the copy, which hostaddrs
// then points at (libgomp's calculate_firstprivate_requirements and copy_firstprivate_data).
size_t firstprivate_size(size_t mapnum, const size_t* sizes, const unsigned short* kinds,
                         size_t* align_out) {
  size_t align = 0, size = 0;
  for (size_t i = 0; i < mapnum; ++i)
    if ((kinds[i] & 0xff) == kMapFirstprivate) {
      size_t a = size_t{1} << (kinds[i] >> 8);
      if (align < a) align = a;
      size = (size + a - 1) & ~(a - 1);
      size += sizes[i];
    }
  *align_out = align;
  return align != 0 ? size + align - 1 : 0;
}

void copy_firstprivate(char* buf, size_t align, size_t mapnum, void** hostaddrs,
                       const size_t* sizes, const unsigned short* kinds) {
  uintptr_t off = reinterpret_cast<uintptr_t>(buf) & (align - 1);
  if (off != 0) buf += align - off;
  size_t at = 0;
  for (size_t i = 0; i < mapnum; ++i)
    if ((kinds[i] & 0xff) == kMapFirstprivate && hostaddrs[i] != nullptr) {
      size_t a = size_t{1} << (kinds[i] >> 8);
      at = (at + a - 1) & ~(a - 1);
      memcpy(buf + at, hostaddrs[i], sizes[i]);
      hostaddrs[i] = buf + at;
      at += sizes[i];
    }
}

// A nowait target region as a task: what it needs once the construct has returned.
struct TargetTask {
  void (*fn)(void*);
  intptr_t thread_limit;
  void** hostaddrs;  // into the same allocation, followed by the firstprivate copies
};

void target_task_main(void* data) {
  TargetTask* t = *static_cast<TargetTask**>(data);
  run_fallback(t->fn, t->hostaddrs, t->thread_limit);
  free(t);
}

void start_target_task(void (*fn)(void*), size_t mapnum, void** hostaddrs, const size_t* sizes,
                       const unsigned short* kinds, void** depend, void** args) {
  size_t align;
  size_t fp = firstprivate_size(mapnum, sizes, kinds, &align);
  size_t bytes = sizeof(TargetTask) + mapnum * sizeof(void*) + fp;
  TargetTask* t = static_cast<TargetTask*>(xmalloc(bytes));
  t->fn = fn;
  t->thread_limit = thread_limit_arg(args);
  t->hostaddrs = reinterpret_cast<void**>(t + 1);
  if (mapnum != 0) memcpy(t->hostaddrs, hostaddrs, mapnum * sizeof(void*));
  if (fp != 0)
    copy_firstprivate(reinterpret_cast<char*>(t->hostaddrs + mapnum), align, mapnum, t->hostaddrs,
                      sizes, kinds);
  psn_GOMP_task(target_task_main, &t, nullptr, sizeof t, alignof(TargetTask*), true,
                depend != nullptr ? kTaskFlagDepend : 0, depend, 0, nullptr);
}

void wait_depend(void** depend) {
  if (depend != nullptr) psn_GOMP_taskwait_depend(depend);
}

}  // namespace
}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

void psn_GOMP_target_ext(int device, void (*fn)(void*), size_t mapnum, void** hostaddrs,
                         size_t* sizes, unsigned short* kinds, unsigned flags, void** depend,
                         void** args) {
  if (device != kDeviceHostFallback && !host_only()) {
    using F = void (*)(int, void (*)(void*), size_t, void**, size_t*, unsigned short*, unsigned,
                       void**, void**);
    if (F f = real<F>("GOMP_target_ext", "GOMP_4.5"))
      return f(device_for_libgomp(device), fn, mapnum, hostaddrs, sizes, kinds, flags, depend,
               args);
  }
  if (flags & kTargetFlagNowait) {
    start_target_task(fn, mapnum, hostaddrs, sizes, kinds, depend, args);
    return;
  }
  wait_depend(depend);
  size_t align;
  size_t fp = firstprivate_size(mapnum, sizes, kinds, &align);
  char stack_buf[512];
  char* buf = fp <= sizeof stack_buf ? stack_buf : static_cast<char*>(xmalloc(fp));
  if (fp != 0) copy_firstprivate(buf, align, mapnum, hostaddrs, sizes, kinds);
  run_fallback(fn, hostaddrs, thread_limit_arg(args));
  if (buf != stack_buf) free(buf);
}

void psn_GOMP_target(int device, void (*fn)(void*), const void* unused, size_t mapnum,
                     void** hostaddrs, size_t* sizes, unsigned char* kinds) {
  if (device != kDeviceHostFallback && !host_only()) {
    using F = void (*)(int, void (*)(void*), const void*, size_t, void**, size_t*, unsigned char*);
    if (F f = real<F>("GOMP_target", "GOMP_4.0"))
      return f(device_for_libgomp(device), fn, unused, mapnum, hostaddrs, sizes, kinds);
  }
  run_fallback(fn, hostaddrs, 0);
}

void psn_GOMP_target_data(int device, const void* unused, size_t mapnum, void** hostaddrs,
                          size_t* sizes, unsigned char* kinds) {
  if (host_only()) return;
  using F = void (*)(int, const void*, size_t, void**, size_t*, unsigned char*);
  if (F f = real<F>("GOMP_target_data", "GOMP_4.0"))
    f(device_for_libgomp(device), unused, mapnum, hostaddrs, sizes, kinds);
}

void psn_GOMP_target_data_ext(int device, size_t mapnum, void** hostaddrs, size_t* sizes,
                              unsigned short* kinds) {
  if (host_only()) return;
  using F = void (*)(int, size_t, void**, size_t*, unsigned short*);
  if (F f = real<F>("GOMP_target_data_ext", "GOMP_4.5"))
    f(device_for_libgomp(device), mapnum, hostaddrs, sizes, kinds);
}

void psn_GOMP_target_end_data() {
  if (host_only()) return;
  if (auto f = real<void (*)()>("GOMP_target_end_data", "GOMP_4.0")) f();
}

void psn_GOMP_target_update(int device, const void* unused, size_t mapnum, void** hostaddrs,
                            size_t* sizes, unsigned char* kinds) {
  if (host_only()) return;
  using F = void (*)(int, const void*, size_t, void**, size_t*, unsigned char*);
  if (F f = real<F>("GOMP_target_update", "GOMP_4.0"))
    f(device_for_libgomp(device), unused, mapnum, hostaddrs, sizes, kinds);
}

void psn_GOMP_target_update_ext(int device, size_t mapnum, void** hostaddrs, size_t* sizes,
                                unsigned short* kinds, unsigned flags, void** depend) {
  if (host_only()) return wait_depend(depend);
  using F = void (*)(int, size_t, void**, size_t*, unsigned short*, unsigned, void**);
  if (F f = real<F>("GOMP_target_update_ext", "GOMP_4.5"))
    f(device_for_libgomp(device), mapnum, hostaddrs, sizes, kinds, flags, depend);
}

void psn_GOMP_target_enter_exit_data(int device, size_t mapnum, void** hostaddrs, size_t* sizes,
                                     unsigned short* kinds, unsigned flags, void** depend) {
  if (host_only()) return wait_depend(depend);
  using F = void (*)(int, size_t, void**, size_t*, unsigned short*, unsigned, void**);
  if (F f = real<F>("GOMP_target_enter_exit_data", "GOMP_4.5"))
    f(device_for_libgomp(device), mapnum, hostaddrs, sizes, kinds, flags, depend);
}

// default-device-var (libgomp's icv-device.c): a negative number means device 0.
void psn_omp_set_default_device(int d) { icv().default_device = d >= 0 ? d : 0; }
int psn_omp_get_default_device() { return icv().default_device; }

}  // extern "C"
