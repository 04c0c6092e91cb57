// Surface membership by mangled name (Itanium C++ ABI). Prefix tests only: these run over
// every symbol of every module, so they must be cheap and allocation-free.
#include "elf/surface.h"

#include <cstring>

namespace poolshim::elf {
namespace {

bool starts_with(const char* s, const char* prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

// Nested-name prefixes of the ExecuTorch thread-pool namespaces; the "K" forms are const members
// (e.g. _ZNK10executorch9extension10threadpool10ThreadPool16get_thread_countEv).
constexpr const char* kExecutorchPrefixes[] = {
    "_ZN10executorch9extension10threadpool",
    "_ZNK10executorch9extension10threadpool",
    "_ZN5torch10executorch10threadpool",
    "_ZNK5torch10executorch10threadpool",
    "_ZN10executorch9extension12parallel_for",
    "_ZN10executorch9extension14get_thread_num",
    "_ZN10executorch9extension14set_thread_num",
};

constexpr const char* kEntryNames[] = {
    "_ZN10executorch9extension10threadpool14get_threadpoolEv",   // executorch::extension::threadpool::get_threadpool()
    "_ZN10executorch9extension10threadpool15get_pthreadpoolEv",  // executorch::extension::threadpool::get_pthreadpool()
    "_ZN5torch10executorch10threadpool14get_threadpoolEv",       // torch::executorch::threadpool::get_threadpool()
    "_ZN5torch10executorch10threadpool15get_pthreadpoolEv",      // torch::executorch::threadpool::get_pthreadpool()
};

}  // namespace

const char* surface_name(Surface s) { return s == kExecutorch ? "executorch" : "pthreadpool"; }

bool is_surface_symbol(Surface s, const char* name) {
  if (name == nullptr) return false;
  if (s == kPthreadpool) return name[0] == 'p' && starts_with(name, "pthreadpool_");
  if (name[0] != '_' || name[1] != 'Z') return false;
  for (const char* p : kExecutorchPrefixes)
    if (starts_with(name, p)) return true;
  return false;
}

bool is_entry_symbol(Surface s, const char* name) {
  if (name == nullptr) return false;
  if (s == kPthreadpool) return strcmp(name, "pthreadpool_create") == 0;
  if (name[0] != '_') return false;
  for (const char* e : kEntryNames)
    if (strcmp(name, e) == 0) return true;
  return false;
}

bool is_provider_symbol(const char* name) { return name != nullptr && strcmp(name, "poolshim_get_info") == 0; }

}  // namespace poolshim::elf
