#include "executorch_surface.h"

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

namespace poolshim_bench {

namespace {

// Mangled names (x86-64 / AArch64 Itanium C++ ABI), as `nm -D` shows them in a module:
//   executorch::extension::threadpool::get_threadpool()
constexpr const char* kGetThreadpool = "_ZN10executorch9extension10threadpool14get_threadpoolEv";
//   executorch::extension::threadpool::ThreadPool::run(executorch::runtime::FunctionRef<void (unsigned long)>, unsigned long)
constexpr const char* kRun =
    "_ZN10executorch9extension10threadpool10ThreadPool3runENS_7runtime11FunctionRefIFvmEEEm";
//   executorch::extension::threadpool::ThreadPool::get_thread_count() const
constexpr const char* kGetThreadCount =
    "_ZNK10executorch9extension10threadpool10ThreadPool16get_thread_countEv";

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

template <typename Fn>
bool resolve(void* handle, const char* name, Fn* out, const std::string& path, std::string* error) {
  *out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (*out == nullptr) *error = path + ": no symbol " + name;
  return *out != nullptr;
}

}  // namespace

bool load_surface(const std::string& path, EtSurface* out, std::string* error) {
  EtSurface s;
  s.path = path;
  s.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (s.handle == nullptr) {
    const char* why = dlerror();
    *error = "dlopen " + path + ": " + (why ? why : "unknown error");
    return false;
  }
  if (!resolve(s.handle, kGetThreadpool, &s.get_threadpool, path, error) ||
      !resolve(s.handle, kRun, &s.run, path, error) ||
      !resolve(s.handle, kGetThreadCount, &s.get_thread_count, path, error))
    return false;
  *out = std::move(s);
  return true;
}

std::string shim_path() { return env_or("POOLSHIM_BENCH_SHIM", POOLSHIM_BENCH_SHIM_DEFAULT); }

std::string module_path() { return env_or("POOLSHIM_BENCH_MODULE", POOLSHIM_BENCH_MODULE_DEFAULT); }

size_t equalize_pool_sizes() {
  long threads = 0;
  if (const char* v = std::getenv("POOLSHIM_BENCH_THREADS")) threads = std::strtol(v, nullptr, 10);
  if (threads < 1) {
    cpu_set_t set;
    threads = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  }
  if (threads < 1) threads = 1;
  const std::string text = std::to_string(threads);
  // Before either pool exists: both read their size on first use.
  setenv("POOLSHIM_NUM_THREADS", text.c_str(), 1);
  setenv("LEGACY_ET_NUM_THREADS", text.c_str(), 1);
  return static_cast<size_t>(threads);
}

void spin_ns(uint64_t ns) {
  auto now = [] {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  };
  const uint64_t until = now() + ns;
  while (now() < until) {
  }
}

int bench_main(int argc, char** argv, RegisterFn register_fn) {
  const size_t threads = equalize_pool_sizes();
  EtSurface raw, shim;
  std::string error;
  if (!load_surface(module_path(), &raw, &error) || !load_surface(shim_path(), &shim, &error)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 2;
  }
  // Both pools must really have the requested size, or the comparison is meaningless.
  const size_t raw_threads = raw.get_thread_count(raw.get_threadpool());
  const size_t shim_threads = shim.get_thread_count(shim.get_threadpool());
  if (raw_threads != threads || shim_threads != threads) {
    std::fprintf(stderr, "%s: pool sizes differ (wanted %zu, raw %zu, shim %zu)\n", argv[0], threads,
                 raw_threads, shim_threads);
    return 2;
  }
  // The check started the legacy pool's workers. Debian's pthreadpool workers spin-wait (about
  // 20 ms here) for a next command before they sleep: let them sleep before any timing, or they
  // would steal a CPU from the side being measured.
  usleep(100 * 1000);
  benchmark::AddCustomContext("pool_threads", std::to_string(threads));
  benchmark::AddCustomContext("raw", raw.path);
  benchmark::AddCustomContext("shim", shim.path);
  register_fn(raw, shim, threads);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace poolshim_bench
