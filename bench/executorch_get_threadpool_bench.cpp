// get_threadpool(): what a legacy module pays to reach its pool on every parallel_for, three ways,
// each through an indirect call so that none is inlined:
//   local_static   a function-local static in this program (the floor: a guard-variable load);
//   raw            the legacy fixture module's own get_threadpool() (function-local static, plus
//                  the call_once/atfork check ExecuTorch's code does on every call);
//   shim           libpoolshim.so's exported get_threadpool().
// Run: build-release/bin/executorch_get_threadpool_bench --benchmark_repetitions=9
#include <benchmark/benchmark.h>

#include "executorch_surface.h"

namespace {

using poolshim_bench::EtSurface;

struct Pool {
  size_t threads = 0;
};

__attribute__((noinline)) void* local_static_get_threadpool() {
  static Pool pool;  // thread-safe initialisation: a guard load on every call, like the legacy code
  return &pool;
}

// volatile: the compiler must load the pointer and call through it, as for the dlsym'ed symbols.
void* (*volatile g_local_static)() = &local_static_get_threadpool;

void get_threadpool_loop(benchmark::State& state, void* (*get)()) {
  for (auto _ : state) {
    void* pool = get();
    benchmark::DoNotOptimize(pool);
  }
}

void register_all(const EtSurface& raw, const EtSurface& shim, size_t /*threads*/) {
  benchmark::RegisterBenchmark("get_threadpool/local_static", [](benchmark::State& s) {
    get_threadpool_loop(s, g_local_static);
  });
  benchmark::RegisterBenchmark("get_threadpool/raw", [get = raw.get_threadpool](benchmark::State& s) {
    get_threadpool_loop(s, get);
  });
  benchmark::RegisterBenchmark("get_threadpool/shim", [get = shim.get_threadpool](benchmark::State& s) {
    get_threadpool_loop(s, get);
  });
}

}  // namespace

int main(int argc, char** argv) { return poolshim_bench::bench_main(argc, argv, register_all); }
