// report_modules_once(): judge every loaded module (elf/registry.h), then log the ones not
// reported yet. Judging happens inside dl_iterate_phdr callbacks; logging happens after, so no
// write(2) or log-file open runs under the loader lock.
#include "diag/report.h"

#include <atomic>

#include "diag/log.h"
#include "diag/runtimes.h"
#include "elf/loaded.h"
#include "elf/reader.h"
#include "elf/registry.h"

namespace poolshim::diag {
namespace {

void judge_callback(const elf::LoadedModule& m, void*) { elf::record_for(m); }

void log_record(const elf::ModuleRecord& r) {
  char verdict[320];
  elf::describe_verdict(r.effective, verdict, sizeof verdict);
  const char* path = *r.display != '\0' ? r.display : "(main executable)";
  log(LogLevel::info, "module %s: %s", path, verdict);
  if (r.alone.problems != 0 && log_enabled(LogLevel::debug)) {
    char problems[256];
    log(LogLevel::debug, "module %s: ELF data incomplete (%s)", path,
        elf::describe_problems(r.alone.problems, problems, sizeof problems));
  }
}

// The loader generation read before the last complete report. Any thread may store it after a
// report; a module loaded meanwhile makes the next call see a newer generation and pass again,
// so nothing is missed (and each module is logged once thanks to its record's flag).
std::atomic<unsigned long long> g_reported_generation{0};

}  // namespace

void report_modules_once() {
  if (!log_enabled(LogLevel::info)) return;
  // Cheap when nothing was loaded since the last report: one step of dl_iterate_phdr.
  unsigned long long gen = elf::loaded_generation();
  if (gen != 0 && gen == g_reported_generation.load(std::memory_order_acquire)) return;
  elf::for_each_module(judge_callback, nullptr);  // the main executable comes first
  // Records are never removed, so a module unloaded since it was judged is still reported
  // once: it was loaded, and the user may want to know.
  size_t n = elf::record_count();
  for (size_t i = 0; i < n; ++i) {
    const elf::ModuleRecord* r = elf::record_at(i);
    if (r == nullptr || !r->effective.carries_surface()) continue;
    if (r->reported.exchange(true, std::memory_order_acq_rel)) continue;
    log_record(*r);
  }
  report_runtimes_once();  // OpenMP, OpenBLAS, MKL, oneTBB: named, not merged (runtimes.h)
  g_reported_generation.store(gen, std::memory_order_release);
}

}  // namespace poolshim::diag
