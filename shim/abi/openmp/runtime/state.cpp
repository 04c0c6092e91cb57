// The native runtime's thread state and ICVs (state.h; the team barrier is in
// team_barrier.cpp, with the tasks its members run: task_wait.h).
//
// ICVs as libgomp reads them (its env.c, read for the rules, never copied): OMP_NUM_THREADS is
// a list, one value per nesting level, its first value nthreads-var (default: the shim's
// budget, where libgomp takes the CPUs of the affinity mask: the same number unless
// POOLSHIM_NUM_THREADS says otherwise); OMP_DYNAMIC (default false); OMP_MAX_ACTIVE_LEVELS, else
// OMP_NESTED, else "a list of more than one value" turns nesting on (UCHAR_MAX levels), else 1;
// OMP_SCHEDULE ([monotonic:|nonmonotonic:]kind[,chunk]; default dynamic,1); OMP_THREAD_LIMIT;
// OMP_PROC_BIND (a list too, one bind-var per level; a list also turns nesting on);
// OMP_DISPLAY_AFFINITY. The environment is read through config::raw_value (config/ is the one
// reader).
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <type_traits>

#include "abi/openmp/runtime/libgomp.h"
#include "abi/openmp/runtime/state.h"
#include "budget/budget.h"
#include "config/options.h"
#include "core/futex.h"
#include "core/gang.h"
#include "core/tls.h"
#include "core/wait.h"
#include "core/workers.h"

namespace poolshim::abi::openmp::runtime {
namespace {

constexpr unsigned kSupportedLevels = UCHAR_MAX;
constexpr unsigned kMaxListed = 16;

Icv g_global;
unsigned g_list[kMaxListed];
unsigned g_list_len = 0;
pthread_once_t g_once = PTHREAD_ONCE_INIT;
long g_spin_ns = core::wait::kSpinNs;  // OMP_WAIT_POLICY=passive: 0
bool g_display_affinity = false;       // OMP_DISPLAY_AFFINITY
// OMP_PROC_BIND's list, one bind-var per level (places.h: Bind), when it names more than one.
int g_bind_list[kMaxListed];
unsigned g_bind_len = 0;

POOLSHIM_FAST_TLS thread_local ThreadState t_state;

bool parse_unsigned(const char*& p, unsigned long* out) {
  while (*p == ' ' || *p == '\t') ++p;
  if (*p < '0' || *p > '9') return false;
  char* end;
  *out = strtoul(p, &end, 10);
  p = end;
  while (*p == ' ' || *p == '\t') ++p;
  return true;
}

bool parse_bool(const char* text, bool* out) {
  if (text == nullptr) return false;
  while (*text == ' ') ++text;
  if (strncasecmp(text, "true", 4) == 0) return *out = true, true;
  if (strncasecmp(text, "false", 5) == 0) return *out = false, true;
  return false;
}

void read_num_threads() {
  const char* p = config::raw_value("OMP_NUM_THREADS");
  if (p == nullptr) return;
  unsigned vals[kMaxListed];
  unsigned n = 0;
  for (;;) {
    unsigned long v;
    if (!parse_unsigned(p, &v) || v == 0 || v > UINT_MAX) return;  // invalid: ignored
    if (n < kMaxListed) vals[n++] = static_cast<unsigned>(v);
    if (*p == '\0') break;
    if (*p++ != ',') return;
  }
  g_global.nthreads = vals[0];
  if (n > 1) {
    memcpy(g_list, vals, n * sizeof vals[0]);
    g_list_len = n;
  }
}

// OMP_PROC_BIND, as libgomp reads it: one of false/true, or a comma-separated list of
// master/primary/close/spread (case-insensitive, blanks around names); an invalid value is
// ignored. bind-var itself is libgomp's (it also turns binding on for OMP_PLACES alone); the
// list gives the levels below the first.
void read_proc_bind() {
  static const struct {
    const char* name;
    unsigned len;
    int bind;
  } kNames[] = {{"false", 5, kBindFalse},     {"true", 4, kBindTrue},   {"master", 6, kBindPrimary},
                {"primary", 7, kBindPrimary}, {"close", 5, kBindClose}, {"spread", 6, kBindSpread}};
  const char* p = config::raw_value("OMP_PROC_BIND");
  int vals[kMaxListed];
  unsigned n = 0;
  while (p != nullptr) {
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;
    int bind = -1;
    for (const auto& k : kNames)
      if (strncasecmp(p, k.name, k.len) == 0) {
        bind = k.bind;
        p += k.len;
        break;
      }
    while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;
    if (bind < 0 || (n > 0 && bind <= kBindTrue) || n == kMaxListed) return;  // invalid: ignored
    vals[n++] = bind;
    if (*p == '\0') break;
    if (*p++ != ',' || vals[0] <= kBindTrue) return;
  }
  if (n > 1) {
    memcpy(g_bind_list, vals, n * sizeof vals[0]);
    g_bind_len = n;
  }
  using GetBind = int (*)();
  if (auto real = reinterpret_cast<GetBind>(real_function("omp_get_proc_bind", "OMP_4.0")))
    g_global.bind = real();
  else if (n > 0)
    g_global.bind = vals[0];
}

void read_schedule() {
  const char* p = config::raw_value("OMP_SCHEDULE");
  if (p == nullptr) return;
  while (*p == ' ') ++p;
  if (strncasecmp(p, "monotonic:", 10) == 0)
    p += 10;
  else if (strncasecmp(p, "nonmonotonic:", 13) == 0)
    p += 13;
  int kind;
  if (strncasecmp(p, "static", 6) == 0)
    kind = kStatic, p += 6;
  else if (strncasecmp(p, "dynamic", 7) == 0)
    kind = kDynamic, p += 7;
  else if (strncasecmp(p, "guided", 6) == 0)
    kind = kGuided, p += 6;
  else if (strncasecmp(p, "auto", 4) == 0)
    kind = kAuto, p += 4;
  else
    return;
  int chunk = kind == kStatic ? 0 : 1;
  while (*p == ' ') ++p;
  if (*p == ',') {
    ++p;
    unsigned long v;
    if (!parse_unsigned(p, &v) || *p != '\0' || v > INT_MAX) return;
    chunk = v == 0 ? 1 : static_cast<int>(v);  // libgomp: a chunk of 0 means 1
  } else if (*p != '\0') {
    return;
  }
  g_global.run_sched = kind;
  g_global.run_chunk = chunk;
}

void load() {
  size_t budget = budget::current().threads;
  g_global.nthreads = budget > 0 ? static_cast<unsigned>(budget) : 1;
  read_num_threads();
  read_proc_bind();
  bool b;
  if (parse_bool(config::raw_value("OMP_DYNAMIC"), &b)) g_global.dyn = b;
  const char* mal = config::raw_value("OMP_MAX_ACTIVE_LEVELS");
  unsigned long v;
  if (mal != nullptr && parse_unsigned(mal, &v) && *mal == '\0') {
    g_global.max_active_levels = v > kSupportedLevels ? kSupportedLevels : static_cast<unsigned>(v);
  } else if (parse_bool(config::raw_value("OMP_NESTED"), &b)) {
    g_global.max_active_levels = b ? kSupportedLevels : 1;
  } else if (g_list_len > 1 || g_bind_len > 1) {
    g_global.max_active_levels = kSupportedLevels;
  }
  bool display;
  if (parse_bool(config::raw_value("OMP_DISPLAY_AFFINITY"), &display)) g_display_affinity = display;
  read_schedule();
  // OMP_WAIT_POLICY, as libgomp parses it: passive sets its spin count to 0.
  if (const char* wp = config::raw_value("OMP_WAIT_POLICY")) {
    while (*wp == ' ' || (*wp >= '\t' && *wp <= '\r')) ++wp;
    if (strncasecmp(wp, "passive", 7) == 0) {
      wp += 7;
      while (*wp == ' ' || (*wp >= '\t' && *wp <= '\r')) ++wp;
      if (*wp == '\0') g_spin_ns = 0;
    }
  }
  // OMP_DEFAULT_DEVICE: a non-negative int, as libgomp's parse_int with zero allowed.
  const char* dd = config::raw_value("OMP_DEFAULT_DEVICE");
  if (dd != nullptr && parse_unsigned(dd, &v) && *dd == '\0' && v <= INT_MAX)
    g_global.default_device = static_cast<int>(v);
  const char* tl = config::raw_value("OMP_THREAD_LIMIT");
  if (tl != nullptr && parse_unsigned(tl, &v) && *tl == '\0' && v > 0 && v <= UINT_MAX)
    g_global.thread_limit = static_cast<unsigned>(v);
}

}  // namespace

const Icv& global_icv() {
  pthread_once(&g_once, load);
  return g_global;
}

bool display_affinity_var() {
  global_icv();
  return g_display_affinity;
}

long wait_spin_ns() {
  global_icv();
  return core::gang::spin_ns(g_spin_ns);
}

int bind_for_level(unsigned level, int inherited) {
  global_icv();
  return level < g_bind_len ? g_bind_list[level] : inherited;
}

unsigned nthreads_for_level(unsigned level, unsigned fallback) {
  global_icv();
  return level < g_list_len ? g_list[level] : fallback;
}

__thread ThreadState* t_me POOLSHIM_FAST_TLS = nullptr;
// t_me stays valid for the thread's life, also while other thread-local destructors run.
static_assert(std::is_trivially_destructible_v<ThreadState>, "t_state is never destroyed");

ThreadState& me_first() {
  ThreadState& s = t_state;
  if (!s.icv_ready) {
    s.icv = global_icv();
    s.icv_ready = true;
  }
  t_me = &s;  // icv_ready stays true: every later write of the state keeps it set
  return s;
}

Icv& icv() { return me().icv; }

void Lock::lock() {
  uint32_t c = 0;
  if (state.compare_exchange_strong(c, 1, std::memory_order_acquire)) return;
  for (int i = 0; i < 100; ++i) {
    core::cpu_relax();
    c = 0;
    if (state.load(std::memory_order_relaxed) == 0 &&
        state.compare_exchange_strong(c, 1, std::memory_order_acquire))
      return;
  }
  c = state.exchange(2, std::memory_order_acquire);
  while (c != 0) {
    core::futex_wait(&state, 2);
    c = state.exchange(2, std::memory_order_acquire);
  }
}

void Lock::unlock() {
  if (state.exchange(0, std::memory_order_release) == 2) core::futex_wake(&state, 1);
}

const void* current_task() {
  ThreadState& s = t_state;
  return s.task != nullptr ? s.task : static_cast<const void*>(&s);
}

}  // namespace poolshim::abi::openmp::runtime
