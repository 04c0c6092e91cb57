// poolshim_get_modules(): the loaded modules that carry a thread-pool surface, with what the
// preload could do for each (judged once per module, see reach/query.h).
#include "poolshim/poolshim.h"
#include "reach/query.h"

namespace {

using poolshim::reach::JudgedModule;
using poolshim::reach::Verdict;

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

// Runs inside dl_iterate_phdr: writes the caller's array, nothing else.
void list_callback(const JudgedModule& m, void* p) {
  ListCtx* c = static_cast<ListCtx*>(p);
  if (c->count < c->cap) {
    poolshim_module& e = c->out[c->count];
    e.path = m.path;
    e.executorch = to_api(m.verdict->surface[poolshim::reach::kExecutorch].verdict);
    e.pthreadpool = to_api(m.verdict->surface[poolshim::reach::kPthreadpool].verdict);
    e.reason = m.reason;
  }
  ++c->count;
}

}  // namespace

extern "C" POOLSHIM_API size_t poolshim_get_modules(struct poolshim_module* out, size_t cap) {
  ListCtx c{out, out != nullptr ? cap : 0, 0};
  poolshim::reach::for_each_loaded_with_surface(list_callback,
                                                &c);  // the main executable comes first
  return c.count;
}
