// poolshim_get_modules(): the loaded modules that carry a thread-pool surface, with what the
// preload could do for each (judged once per module, see elf/registry.h).
#include "elf/loaded.h"
#include "elf/registry.h"
#include "poolshim/poolshim.h"

namespace {

using poolshim::elf::LoadedModule;
using poolshim::elf::ModuleRecord;
using poolshim::elf::Verdict;

struct ListCtx {
  poolshim_module* out;
  size_t cap;
  size_t count;
};

poolshim_verdict to_api(Verdict v) {
  switch (v) {
    case Verdict::redirected: return POOLSHIM_REDIRECTED;
    case Verdict::unreachable: return POOLSHIM_UNREACHABLE;
    case Verdict::absent: break;
  }
  return POOLSHIM_ABSENT;
}

// Runs inside dl_iterate_phdr: reads the registry and writes the caller's array, nothing else.
void list_callback(const LoadedModule& m, void* p) {
  ListCtx* c = static_cast<ListCtx*>(p);
  // A full registry (over a thousand modules) cannot give strings that outlive the call.
  const ModuleRecord* r = poolshim::elf::record_for(m);
  if (r == nullptr || !r->effective.carries_surface()) return;
  if (c->count < c->cap) {
    poolshim_module& e = c->out[c->count];
    e.path = r->path;
    e.executorch = to_api(r->effective.surface[poolshim::elf::kExecutorch].verdict);
    e.pthreadpool = to_api(r->effective.surface[poolshim::elf::kPthreadpool].verdict);
    e.reason = r->reason;
  }
  ++c->count;
}

}  // namespace

extern "C" POOLSHIM_API size_t poolshim_get_modules(struct poolshim_module* out, size_t cap) {
  ListCtx c{out, out != nullptr ? cap : 0, 0};
  poolshim::elf::for_each_module(list_callback, &c);  // the main executable comes first
  return c.count;
}
