// Native __kmpc task reductions: a taskgroup's task_reduction clause and a taskloop's reduction
// clause (clang wraps the taskloop in a taskgroup). clang calls __kmpc_taskred_init inside the
// taskgroup with one kmp_taskred_input_t per item, passes the handle it returns to
// __kmpc_task_reduction_get_th_data in each task that takes part (in_reduction), which answers
// the calling thread's private copy of the item, and the taskgroup's end combines the copies.
//
// As libomp does it (its kmp_tasking.cpp, read for the scheme): each item has one copy per member
// of the team, indexed by the member's number (the tasks of a taskgroup run on its team's
// members), made and initialized at init (reduce_init(copy, orig)), or, for an item the compiler
// marks lazy_priv, on the member's first get_th_data. The taskgroup's end, once its tasks are
// complete, combines each copy into the shared item (reduce_comb(shared, copy)), finalizes it
// (reduce_fini) and frees it. A team of 1 has no copies: get_th_data answers the item itself.
//
// The data hangs off the runtime's TaskGroup (kmpc_reductions), which the taskgroup's end reads
// before the runtime's end frees it; a taskgroup nested in one with reductions finds an outer
// item through its data's outer link, as libomp's walks its taskgroups' parents.
//
// The task modifier (reduction(task, ...) on a region or a worksharing construct: clang calls
// __kmpc_taskred_modifier_init in every member, then __kmpc_task_reduction_modifier_fini): as
// libomp, each member opens a taskgroup; the first to arrive makes the copies, one per member,
// and leaves them in the team (Team::kmpc_modifier); each member's taskgroup gets a view of
// them whose shared items are its own private items of the construct's reduction. At fini each
// member ends its taskgroup (its tasks complete); the last one combines the copies into its own
// private items, which the construct's reduction then combines with the others'. A barrier
// follows the construct, so the team's slot is free again before the next such construct.
#include <stdlib.h>
#include <string.h>

#include <cstdint>

#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "base/assert.h"
#include "core/cache_line.h"
#include "core/futex.h"

// libomp's kmp_taskred_input_t (clang-14 builds it): the item, the original it is initialized
// from (nullptr: the item), its size, the routines, and the flags word (bit 0: lazy_priv).
struct kmp_taskred_input_t {
  void* reduce_shar;
  void* reduce_orig;
  size_t reduce_size;
  void* reduce_init;  // void (*)(void* copy, void* orig), or nullptr: the copy stays zeroed
  void* reduce_fini;  // void (*)(void* copy), or nullptr
  void* reduce_comb;  // void (*)(void* shared, void* copy)
  uint32_t flags;
};

namespace poolshim::abi::openmp::kmpc {
namespace {

namespace rt = runtime;

using InitFn = void (*)(void*, void*);
using FiniFn = void (*)(void*);
using CombFn = void (*)(void*, void*);

constexpr uint32_t kLazyPriv = 1;
using core::kCacheLine;

struct Item {
  void* shared;
  void* orig;
  size_t size;  // a copy's size, rounded up to a line (no two members share one)
  InitFn init;
  FiniFn fini;
  CombFn comb;
  bool lazy;
  // Not lazy: members * size bytes, member i's copy at i * size. Lazy: members pointers, each
  // null until that member's first get_th_data.
  char* copies;
};

struct Reductions {
  Reductions* outer;  // the enclosing taskgroup's, if it has any
  unsigned members;   // the team's size at init
  int32_t count;
  // The task modifier's: the team whose copies these are, and which of its slots (0: the
  // region's, 1: a worksharing construct's); team nullptr: a taskgroup's own reduction.
  rt::Team* team;
  int which;
  Item item[1];  // count entries
};

size_t reductions_bytes(int32_t count) {
  return sizeof(Reductions) + static_cast<size_t>(count - 1) * sizeof(Item);
}

// Zeroed memory of `bytes` (a multiple of a line) on lines of its own.
char* zeroed_lines(size_t bytes) {
  auto* p = static_cast<char*>(rt::xaligned_alloc(kCacheLine, bytes));
  memset(p, 0, bytes);
  return p;
}

void* copy_of(Item& it, unsigned member) {
  if (!it.lazy) return it.copies + member * it.size;
  void*& p = reinterpret_cast<void**>(it.copies)[member];
  if (p == nullptr) {
    p = zeroed_lines(it.size);
    if (it.init != nullptr) it.init(p, it.orig);
  }
  return p;
}

// The reductions of `in` for a team of `members`, every copy made (and initialized, unless lazy).
Reductions* make_reductions(unsigned members, int32_t num, const kmp_taskred_input_t* in) {
  auto* r = static_cast<Reductions*>(rt::xcalloc(1, reductions_bytes(num)));
  r->members = members;
  r->count = num;
  for (int32_t i = 0; i < num; ++i) {
    Item& it = r->item[i];
    it.shared = in[i].reduce_shar;
    it.orig = in[i].reduce_orig != nullptr ? in[i].reduce_orig : in[i].reduce_shar;
    it.size = (in[i].reduce_size + kCacheLine - 1) / kCacheLine * kCacheLine;
    if (it.size == 0) it.size = kCacheLine;
    it.init = reinterpret_cast<InitFn>(in[i].reduce_init);
    it.fini = reinterpret_cast<FiniFn>(in[i].reduce_fini);
    it.comb = reinterpret_cast<CombFn>(in[i].reduce_comb);
    it.lazy = (in[i].flags & kLazyPriv) != 0;
    if (it.lazy) {
      it.copies = static_cast<char*>(rt::xcalloc(members, sizeof(void*)));
      continue;
    }
    it.copies = zeroed_lines(members * it.size);
    if (it.init != nullptr)
      for (unsigned m = 0; m < members; ++m) it.init(it.copies + m * it.size, it.orig);
  }
  return r;
}

// The innermost reductions of the taskgroups enclosing g (g excluded).
Reductions* outer_of(const rt::TaskGroup* g) {
  for (const rt::TaskGroup* o = g->prev; o != nullptr; o = o->prev)
    if (o->kmpc_reductions != nullptr) return static_cast<Reductions*>(o->kmpc_reductions);
  return nullptr;
}

// Combines every copy into the shared items of r, finalizes and frees the copies.
void combine(Reductions* r) {
  for (int32_t i = 0; i < r->count; ++i) {
    Item& it = r->item[i];
    for (unsigned m = 0; m < r->members; ++m) {
      void* c = it.lazy ? reinterpret_cast<void**>(it.copies)[m] : it.copies + m * it.size;
      if (c == nullptr) continue;  // a lazy copy nobody made
      it.comb(it.shared, c);
      if (it.fini != nullptr) it.fini(c);
      if (it.lazy) free(c);
    }
    free(it.copies);
  }
}

// The team's slot while its first member makes the copies.
void* const kMaking = reinterpret_cast<void*>(1);

// Whether address a is item it's shared item or one of its copies.
bool names(const Item& it, const void* a, unsigned members) {
  if (a == it.shared) return true;
  if (!it.lazy) {
    const char* c = static_cast<const char*>(a);
    return c >= it.copies && c < it.copies + members * it.size;
  }
  for (unsigned i = 0; i < members; ++i)
    if (reinterpret_cast<void**>(it.copies)[i] == a) return true;
  return false;
}

}  // namespace
}  // namespace poolshim::abi::openmp::kmpc

using namespace poolshim::abi::openmp::kmpc;
namespace rt = poolshim::abi::openmp::runtime;

extern "C" {

void* psk_taskred_init(int32_t, int32_t num, void* data) {
  rt::ThreadState& s = rt::me();
  rt::TaskGroup* g = s.taskgroup;
  // A team of 1 keeps no copies (get_th_data answers the item), as libomp's; outside a
  // taskgroup there is nothing to hang the data on (not valid OpenMP). The handle is then null.
  if (s.team == nullptr || s.team->n <= 1 || g == nullptr || num <= 0) return nullptr;
  Reductions* r = make_reductions(s.team->n, num, static_cast<const kmp_taskred_input_t*>(data));
  r->outer = outer_of(g);
  POOLSHIM_ASSERT(g->kmpc_reductions == nullptr);  // one task_reduction init per taskgroup
  g->kmpc_reductions = r;
  return r;
}

void* psk_taskred_modifier_init(ident_t*, int32_t, int32_t is_ws, int32_t num, void* data) {
  psn_GOMP_taskgroup_start();
  rt::ThreadState& s = rt::me();
  rt::Team* t = s.team;
  rt::TaskGroup* g = s.taskgroup;
  if (t == nullptr || t->n <= 1 || g == nullptr || num <= 0) return nullptr;
  const int which = is_ws != 0 ? 1 : 0;
  std::atomic<void*>& slot = t->kmpc_modifier[which];
  const auto* in = static_cast<const kmp_taskred_input_t*>(data);
  void* core = slot.load(std::memory_order_acquire);
  if (core == nullptr && slot.compare_exchange_strong(core, kMaking, std::memory_order_acq_rel)) {
    Reductions* made = make_reductions(t->n, num, in);
    made->team = t;
    made->which = which;
    slot.store(made, std::memory_order_release);
    core = made;
  }
  while (core == kMaking) {  // another member is making them: brief (its init routines)
    poolshim::core::cpu_relax();
    core = slot.load(std::memory_order_acquire);
  }
  const auto* c = static_cast<const Reductions*>(core);
  POOLSHIM_ASSERT(c->count == num && c->members == t->n);  // the same construct in every member
  auto* r = static_cast<Reductions*>(rt::xcalloc(1, reductions_bytes(num)));
  memcpy(r, c, reductions_bytes(num));
  for (int32_t i = 0; i < num; ++i) r->item[i].shared = in[i].reduce_shar;
  r->outer = outer_of(g);
  g->kmpc_reductions = r;
  return r;
}

void* psk_task_reduction_get_th_data(int32_t, void* tg, void* data) {
  rt::ThreadState& s = rt::me();
  if (data == nullptr || s.team == nullptr || s.team->n <= 1) return data;
  // No handle: the reductions of the calling task's taskgroups, innermost first.
  auto* r = static_cast<Reductions*>(tg);
  for (const rt::TaskGroup* g = s.taskgroup; r == nullptr && g != nullptr; g = g->prev)
    r = static_cast<Reductions*>(g->kmpc_reductions);
  for (; r != nullptr; r = r->outer)
    for (int32_t i = 0; i < r->count; ++i)
      if (names(r->item[i], data, r->members) && s.num < r->members)
        return copy_of(r->item[i], s.num);
  return data;  // not an item of a reduction in progress (libomp asserts): the item itself
}

}  // extern "C"

namespace poolshim::abi::openmp::kmpc {

void taskgroup_reductions_end(void* data) {
  auto* r = static_cast<Reductions*>(data);
  if (r == nullptr) return;
  if (r->team != nullptr) {  // the task modifier's: the last member combines (file comment)
    rt::Team* t = r->team;
    const unsigned done =
        t->kmpc_modifier_done[r->which].fetch_add(1, std::memory_order_acq_rel) + 1;
    POOLSHIM_ASSERT(done <= r->members);
    if (done == r->members) {
      combine(r);
      free(t->kmpc_modifier[r->which].load(std::memory_order_relaxed));
      t->kmpc_modifier_done[r->which].store(0, std::memory_order_relaxed);
      t->kmpc_modifier[r->which].store(nullptr, std::memory_order_release);
    }
  } else {
    combine(r);
  }
  free(r);
}

}  // namespace poolshim::abi::openmp::kmpc
