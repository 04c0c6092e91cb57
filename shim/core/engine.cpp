#include "core/engine.h"

#include <dlfcn.h>
#include <pthread.h>

#include "diag/log.h"

namespace poolshim::core::engine {
namespace {

Api g_api;
const Api* g_bound = nullptr;  // written once under g_once
pthread_once_t g_once = PTHREAD_ONCE_INIT;

// The soname of Debian's runtime package libpthreadpool0.
constexpr const char* kEngineSoname = "libpthreadpool.so.0";

// dlsym on the private handle searches that object (then its own dependencies) only, never the
// global scope, so it cannot return the shim's own exported pthreadpool_* definitions. Still,
// check: an address inside libpoolshim.so would make every call recurse into ourselves.
void* bind(void* handle, const char* name) {
  void* sym = dlsym(handle, name);
  if (sym == nullptr) return nullptr;
  Dl_info mine, theirs;
  if (dladdr(reinterpret_cast<void*>(&bind), &mine) != 0 && dladdr(sym, &theirs) != 0 &&
      mine.dli_fbase == theirs.dli_fbase) {
    POOLSHIM_LOG(warn, "engine symbol %s resolved into poolshim itself; not using it", name);
    return nullptr;
  }
  return sym;
}

void load() {
  // RTLD_LOCAL: the engine's symbols stay out of the global scope. RTLD_NOW: fail here, not later
  // inside a worker. If a legacy module already loaded libpthreadpool.so.0 globally we get that
  // same copy, which is fine: we only call it through this handle.
  void* handle = dlopen(kEngineSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    POOLSHIM_LOG(warn, "cannot open the engine %s (%s); every parallel call runs serially",
                 kEngineSoname, err ? err : "unknown error");
    return;
  }
  g_api.create = reinterpret_cast<decltype(g_api.create)>(bind(handle, "pthreadpool_create"));
  g_api.destroy = reinterpret_cast<decltype(g_api.destroy)>(bind(handle, "pthreadpool_destroy"));
  g_api.threads_count = reinterpret_cast<decltype(g_api.threads_count)>(
      bind(handle, "pthreadpool_get_threads_count"));
  g_api.parallelize_1d = reinterpret_cast<decltype(g_api.parallelize_1d)>(
      bind(handle, "pthreadpool_parallelize_1d"));
  if (!g_api.create || !g_api.destroy || !g_api.threads_count || !g_api.parallelize_1d) {
    POOLSHIM_LOG(warn, "the engine %s lacks a required function; every parallel call runs serially",
                 kEngineSoname);
    return;  // the handle stays open: harmless, and closing could unmap a module's dependency
  }
  g_bound = &g_api;
  POOLSHIM_LOG(debug, "engine %s bound privately", kEngineSoname);
}

}  // namespace

const Api* api() {
  pthread_once(&g_once, load);
  return g_bound;
}

}  // namespace poolshim::core::engine
