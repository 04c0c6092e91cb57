// The ExecuTorch thread-pool surface of one shared object, reached by dlsym on its handle, for the
// micro-benchmarks (executorch_*_bench.cpp). The same mangled names are looked up in two objects
// loaded into the same process, each with dlopen(RTLD_NOW | RTLD_LOCAL):
//   - "raw":  a fixture module (module_a.so) whose legacy pool runs on Debian's pthreadpool;
//   - "shim": libpoolshim.so, the shim's exported definitions.
// Neither joins the global scope, so the module's internal calls bind to its own legacy code (it
// is NOT redirected to the shim here) and each side is measured alone, through the same kind of
// indirect call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace poolshim_bench {

// executorch::runtime::FunctionRef<void(size_t)>: { callback(callable, i); callable }. Trivially
// copyable and 16 bytes, so it is passed by value in two integer registers, exactly like the class
// (the ABI docs/interposition.md describes and tests/fixtures/legacy_et/function_ref.h asserts).
struct FunctionRefIndex {
  void (*callback)(intptr_t callable, size_t i);
  intptr_t callable;
};

struct EtSurface {
  std::string path;
  void* handle = nullptr;
  // executorch::extension::threadpool::get_threadpool()
  void* (*get_threadpool)() = nullptr;
  // ThreadPool::run(FunctionRef<void(size_t)>, size_t): `this` is the first argument.
  void (*run)(void* self, FunctionRefIndex fn, size_t range) = nullptr;
  // ThreadPool::get_thread_count() const
  size_t (*get_thread_count)(const void* self) = nullptr;
};

// dlopen(path, RTLD_NOW | RTLD_LOCAL) and resolve the three symbols on that handle. Returns false
// with *error set when something is missing.
bool load_surface(const std::string& path, EtSurface* out, std::string* error);

// Paths of the two objects: the environment variables POOLSHIM_BENCH_SHIM and
// POOLSHIM_BENCH_MODULE when set, else the build tree's files (compile definitions).
std::string shim_path();
std::string module_path();

// Gives both pools the same size before either exists: POOLSHIM_BENCH_THREADS when set, else the
// CPUs in this process's affinity mask; exported as POOLSHIM_NUM_THREADS (the shim's budget) and
// LEGACY_ET_NUM_THREADS (the fixture's legacy pool size). Returns the size.
size_t equalize_pool_sizes();

// Busy-waits about ns nanoseconds on the monotonic clock (the fixtures' workload, never a sleep).
void spin_ns(uint64_t ns);

// The common main(): equalizes pool sizes, loads both surfaces (exit 2 on failure), calls
// register_fn(raw, shim, threads) to register benchmarks, then runs Google Benchmark.
using RegisterFn = void (*)(const EtSurface& raw, const EtSurface& shim, size_t threads);
int bench_main(int argc, char** argv, RegisterFn register_fn);

}  // namespace poolshim_bench
