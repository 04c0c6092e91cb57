// POOLSHIM_DISABLE=pthreadpool (see pthreadpool_passthrough.h).
//
// Note on Debian's library: its compute_* functions call pthreadpool_parallelize_* and
// pthreadpool_get_threads_count through its own PLT, so under LD_PRELOAD those inner calls land
// back in the shim's exports with a Debian pool pointer. That is fine in passthrough mode (every
// export forwards to Debian again); outside it the shim never calls Debian's compute_*.
#include "abi/pthreadpool/passthrough.h"

#include <pthread.h>
#include <string.h>

#include <atomic>

#include "base/fork_hooks.h"
#include "base/private_library.h"
#include "diag/log.h"
#include "config/options.h"

namespace poolshim::abi::ptp::passthrough {

// 0 = not decided yet, 1 = the shim serves the API, 2 = passthrough. Written once (the value is
// a pure function of the environment, so racing first calls store the same thing). Read inline
// by active() (passthrough.h).
std::atomic<int> g_mode{0};

namespace {

constexpr const char* kSoname = "libpthreadpool.so.0";

// Indexed by Fn.
constexpr const char* kNames[] = {
#define POOLSHIM_PTP_NAME(name) "pthreadpool_" #name,
    POOLSHIM_PTP_LIBRARY_FUNCTIONS(POOLSHIM_PTP_NAME)
#undef POOLSHIM_PTP_NAME
};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Fn::count),
              "one name per Fn");

void* g_symbols[static_cast<size_t>(Fn::count)];
bool g_loaded = false;  // written once under g_once
pthread_once_t g_once = PTHREAD_ONCE_INIT;

void load() {
  // Privately, refusing any symbol that resolves into the shim itself (a forwarded call would
  // recurse forever): base/private_library.h.
  base::PrivateLibrary lib =
      base::open_private(kSoname, kNames, static_cast<size_t>(Fn::count), g_symbols);
  if (lib.handle == nullptr) {
    POOLSHIM_LOG(warn,
                 "POOLSHIM_DISABLE=pthreadpool: cannot open %s (%s); the shim keeps serving "
                 "the pthreadpool API",
                 kSoname, lib.error);
    return;
  }
  g_loaded = g_symbols[static_cast<size_t>(Fn::create)] != nullptr &&
             g_symbols[static_cast<size_t>(Fn::destroy)] != nullptr;
  if (g_loaded)
    POOLSHIM_LOG(info, "POOLSHIM_DISABLE=pthreadpool: forwarding every pthreadpool_* call to %s",
                 kSoname);
}

// The functions Debian lacks that were already reported (small fixed table).
constexpr size_t kNotedSlots = 32;
const char* g_noted[kNotedSlots];
size_t g_noted_count = 0;
// Enrolled in lifecycle/fork.cpp; on the fork locks' page (base/fork_hooks.h).
pthread_mutex_t& g_noted_mutex = base::g_fork_locks.ptp_passthrough;

}  // namespace

void passthrough_atfork_prepare() { pthread_mutex_lock(&g_noted_mutex); }
void passthrough_atfork_parent() { pthread_mutex_unlock(&g_noted_mutex); }
void passthrough_atfork_child() { pthread_mutex_unlock(&g_noted_mutex); }

bool decide_active() {
  int mode = g_mode.load(std::memory_order_acquire);
  if (mode == 0) {
    bool disabled = (config::options().disabled & config::kSurfacePthreadpool) != 0;
    if (disabled) pthread_once(&g_once, load);
    mode = disabled && g_loaded ? 2 : 1;
    g_mode.store(mode, std::memory_order_release);
  }
  return mode == 2;
}

void* symbol(Fn f) {
  pthread_once(&g_once, load);
  return g_symbols[static_cast<size_t>(f)];
}

void note_missing(const char* name, const char* fallback) {
  if (!diag::log_enabled(diag::LogLevel::info)) return;
  pthread_mutex_lock(&g_noted_mutex);
  bool first = true;
  for (size_t i = 0; i < g_noted_count; ++i)
    if (strcmp(g_noted[i], name) == 0) first = false;
  if (first && g_noted_count < kNotedSlots) g_noted[g_noted_count++] = name;
  pthread_mutex_unlock(&g_noted_mutex);
  if (first)
    POOLSHIM_LOG(info, "POOLSHIM_DISABLE=pthreadpool: %s is not in %s; %s", name, kSoname,
                 fallback);
}

}  // namespace poolshim::abi::ptp::passthrough
