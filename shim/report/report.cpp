// report_modules_once(): judge every loaded module (reach/query.h), then log the ones not
// reported yet. Judging happens inside dl_iterate_phdr callbacks; logging happens after, so no
// write(2) or log-file open runs under the loader lock.
#include "report/report.h"

#include <atomic>

#include "diag/log.h"
#include "report/runtimes.h"
#include "base/modules.h"
#include "elf/reader.h"
#include "reach/query.h"

namespace poolshim::report {
namespace {

// One flag per judged module (reach::judged_module's index): each is reported once.
std::atomic<bool> g_reported[reach::kMaxJudged];

void log_module(const reach::JudgedModule& m) {
  char verdict[320];
  reach::describe_verdict(*m.verdict, verdict, sizeof verdict);
  const char* path = *m.display != '\0' ? m.display : "(main executable)";
  diag::log(diag::LogLevel::info, "module %s: %s", path, verdict);
  if (m.verdict->problems != 0 && diag::log_enabled(diag::LogLevel::debug)) {
    char problems[256];
    diag::log(diag::LogLevel::debug, "module %s: ELF data incomplete (%s)", path,
              elf::describe_problems(m.verdict->problems, problems, sizeof problems));
  }
}

// The loader generation read before the last complete report. Any thread may store it after a
// report; a module loaded meanwhile makes the next call see a newer generation and pass again,
// so nothing is missed (and each module is logged once thanks to its flag in g_reported).
std::atomic<unsigned long long> g_reported_generation{0};

}  // namespace

void report_modules_once() {
  if (!diag::log_enabled(diag::LogLevel::info)) return;
  // Cheap when nothing was loaded since the last report: one step of dl_iterate_phdr.
  unsigned long long gen = base::loaded_generation();
  if (gen != 0 && gen == g_reported_generation.load(std::memory_order_acquire)) return;
  reach::judge_loaded_modules();  // the main executable comes first
  // Judged modules are never forgotten, so a module unloaded since it was judged is still
  // reported once: it was loaded, and the user may want to know.
  size_t n = reach::judged_count();
  reach::JudgedModule m;
  for (size_t i = 0; i < n && i < reach::kMaxJudged; ++i) {
    if (!reach::judged_module(i, &m) || !m.verdict->carries_surface()) continue;
    if (g_reported[i].exchange(true, std::memory_order_acq_rel)) continue;
    log_module(m);
  }
  report_runtimes_once();  // OpenMP, OpenBLAS, MKL, oneTBB: named, not merged (runtimes.h)
  g_reported_generation.store(gen, std::memory_order_release);
}

}  // namespace poolshim::report
