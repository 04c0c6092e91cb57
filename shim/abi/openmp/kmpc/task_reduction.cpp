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
#include <stdlib.h>
#include <string.h>

#include <cstdint>

#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "base/assert.h"
#include "core/cache_line.h"

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
  Item item[1];  // count entries
};

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
  const unsigned members = s.team->n;
  auto* r = static_cast<Reductions*>(
      rt::xcalloc(1, sizeof(Reductions) + static_cast<size_t>(num - 1) * sizeof(Item)));
  r->members = members;
  r->count = num;
  for (const rt::TaskGroup* o = g->prev; o != nullptr && r->outer == nullptr; o = o->prev)
    r->outer = static_cast<Reductions*>(o->kmpc_reductions);
  const auto* in = static_cast<const kmp_taskred_input_t*>(data);
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
  POOLSHIM_ASSERT(g->kmpc_reductions == nullptr);  // one task_reduction init per taskgroup
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
  free(r);
}

}  // namespace poolshim::abi::openmp::kmpc
