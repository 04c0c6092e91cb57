// Caller identification for log lines: dladdr() on a return address.
#include "diag/caller.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "base/fork_hooks.h"
#include "base/text.h"
#include "diag/log.h"
#include "base/modules.h"

namespace poolshim::diag {
namespace {

char g_exe_path[512];
pthread_once_t g_exe_once = PTHREAD_ONCE_INIT;

void read_exe_path() {
  ssize_t n = readlink("/proc/self/exe", g_exe_path, sizeof g_exe_path - 1);
  g_exe_path[n > 0 ? n : 0] = '\0';
}

// (site, module base) pairs already logged. Only touched when the log level is info or more.
constexpr size_t kSeenSlots = 512;
struct Seen {
  LogSite site;
  const void* base;
};
Seen g_seen[kSeenSlots];
size_t g_seen_count = 0;
// Module lifetime: the pairs are keyed by base address, so they are forgotten whenever a module
// was unloaded since they were recorded (another module may now sit at the same base).
unsigned long long g_seen_unloads = 0;
// Enrolled in lifecycle/fork.cpp.
pthread_mutex_t& g_seen_mutex = base::g_fork_locks.caller_seen;  // base/fork_hooks.h

bool first_time(LogSite site, const void* base) {
  unsigned long long unloads =
      base::unloaded_generation();  // outside the mutex: it is a loader call
  pthread_mutex_lock(&g_seen_mutex);
  if (unloads != g_seen_unloads) {
    g_seen_count = 0;
    g_seen_unloads = unloads;
  }
  bool first = true;
  for (size_t i = 0; i < g_seen_count; ++i) {
    if (g_seen[i].site == site && g_seen[i].base == base) {
      first = false;
      break;
    }
  }
  if (first && g_seen_count < kSeenSlots)
    g_seen[g_seen_count++] = Seen{site, base};
  else if (first)
    first = false;  // table full: stay quiet rather than repeat forever
  pthread_mutex_unlock(&g_seen_mutex);
  return first;
}

}  // namespace

void caller_atfork_prepare() { pthread_mutex_lock(&g_seen_mutex); }
void caller_atfork_parent() { pthread_mutex_unlock(&g_seen_mutex); }
void caller_atfork_child() { pthread_mutex_unlock(&g_seen_mutex); }

const char* caller_module(const void* addr) {
  Dl_info info;
  link_map* map = nullptr;
  if (addr == nullptr || dladdr1(addr, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0)
    return "";
  // The main program heads the link-map list; dladdr names it by argv[0] (or ""), so read the
  // real path instead.
  if (map != nullptr && map->l_prev == nullptr) {
    pthread_once(&g_exe_once, read_exe_path);
    return g_exe_path;
  }
  return info.dli_fname != nullptr ? info.dli_fname : "";
}

const void* caller_base(const void* addr) {
  Dl_info info;
  if (addr == nullptr || dladdr(addr, &info) == 0) return nullptr;
  return info.dli_fbase;
}

namespace {

void first_call(LogLevel level, LogSite site, const void* ret_addr, const char* what,
                const char* separator, const char* fmt, va_list ap) {
  if (!log_enabled(level)) return;
  if (!first_time(site, caller_base(ret_addr))) return;
  char text[256];
  base::Text(text).vappendf(fmt, ap);
  const char* mod = caller_module(ret_addr);
  log(level, "%s from %s%s%s", what, *mod ? mod : "(unknown module)", separator, text);
}

}  // namespace

void log_first_call(LogSite site, const void* ret_addr, const char* what, const char* result_fmt,
                    ...) {
  va_list ap;
  va_start(ap, result_fmt);
  first_call(LogLevel::info, site, ret_addr, what, " -> ", result_fmt, ap);
  va_end(ap);
}

void warn_first_call(LogSite site, const void* ret_addr, const char* what, const char* detail_fmt,
                     ...) {
  va_list ap;
  va_start(ap, detail_fmt);
  first_call(LogLevel::warn, site, ret_addr, what, ": ", detail_fmt, ap);
  va_end(ap);
}

}  // namespace poolshim::diag
