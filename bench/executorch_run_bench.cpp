// ThreadPool::run dispatch cost: one call over a range equal to the pool's thread count (one item
// per thread, the shape parallel_for gives a loop), with an empty task and with a ~1 us busy task.
//   raw    the legacy fixture module's own run(): its mutex, NoThreadPoolGuard per item, and
//          pthreadpool_parallelize_1d on Debian's pthreadpool;
//   shim   libpoolshim.so's run() on its one pool (same engine, same size: see
//          executorch_surface.h, equalize_pool_sizes()).
// Both run on the caller plus (threads - 1) workers; the time is the caller's wall time per call.
// Run: build-release/bin/executorch_run_bench --benchmark_repetitions=9
#include <benchmark/benchmark.h>

#include <atomic>
#include <string>

#include "executorch_surface.h"

namespace {

using poolshim_bench::EtSurface;
using poolshim_bench::FunctionRefIndex;

struct Task {
  uint64_t spin_ns;
  std::atomic<size_t> done{0};
};

// The FunctionRef callback: callable is the Task. Counting the items keeps the work observable
// (and lets the loop check that every item ran).
void task_item(intptr_t callable, size_t /*i*/) {
  auto* task = reinterpret_cast<Task*>(callable);
  if (task->spin_ns) poolshim_bench::spin_ns(task->spin_ns);
  task->done.fetch_add(1, std::memory_order_relaxed);
}

void run_loop(benchmark::State& state, const EtSurface& surface, size_t threads, uint64_t spin) {
  void* pool = surface.get_threadpool();
  Task task{spin};
  const FunctionRefIndex fn{&task_item, reinterpret_cast<intptr_t>(&task)};
  for (auto _ : state) surface.run(pool, fn, threads);
  if (task.done.load() != threads * static_cast<size_t>(state.iterations()))
    state.SkipWithError("items lost or duplicated");
  state.counters["items_per_call"] = static_cast<double>(threads);
}

void register_all(const EtSurface& raw, const EtSurface& shim, size_t threads) {
  struct Variant {
    const char* name;
    uint64_t spin_ns;
  };
  for (Variant v : {Variant{"empty", 0}, Variant{"task_1us", 1000}}) {
    for (const EtSurface* s : {&raw, &shim}) {
      const std::string name = std::string("run/") + (s == &raw ? "raw/" : "shim/") + v.name;
      benchmark::RegisterBenchmark(name.c_str(), [s, threads, spin = v.spin_ns](benchmark::State& st) {
        run_loop(st, *s, threads, spin);
      })->UseRealTime();
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return poolshim_bench::bench_main(argc, argv, register_all); }
