// Native worksharing: the construct list the loops, sections and single copyprivate share
// (state.h), entering and leaving it, ordered turns, the schedule numbers, and the long loop
// calls on top of loop_split.cpp (which splits the iterations of long and unsigned long long
// loops alike).
// Ordered: chunks take turns in the order of their logical iteration numbers; a member passes
// the turn on when it moves to its next chunk or leaves the loop.
#include <limits.h>
#include <stdlib.h>

#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "core/futex.h"
#include "core/wait.h"
#include "base/assert.h"

namespace poolshim::abi::openmp::runtime {
namespace {

thread_local WorkShare t_solo;  // the construct of a team of 1 (no sharing, no lock)

// Waits for the turn of the chunk whose first logical number is `mine`: spins as every wait of
// the runtime (wait_spin_ns(): none with OMP_WAIT_POLICY=passive), then sleeps on the
// construct's ordered_event (libgomp's ordered waits sleep on a semaphore too). ordered_pass
// pairs with it: its store of the turn, then its read of the sleepers (both seq_cst).
void wait_turn(WorkShare* w, long mine) {
  auto turn_came = [w, mine] { return w->ordered_turn.load(std::memory_order_seq_cst) == mine; };
  if (core::wait::spin_for(wait_spin_ns(), turn_came)) return;
  for (;;) {
    uint32_t seen = w->ordered_event.load(std::memory_order_seq_cst);
    if (turn_came()) return;
    core::wait::sleep_on(w->ordered_event, seen, core::wait::SleepCount{w->ordered_sleepers},
                         turn_came, [] {});
  }
}

}  // namespace

// Ordered loops: before a member takes its next chunk (or leaves), its current chunk's turn
// must have come, and passes on.
void ordered_pass(WorkShare* w) {
  ThreadState& s = me();
  if (!w->ordered || s.ord_begin < 0) return;
  wait_turn(w, s.ord_begin);
  w->ordered_turn.store(s.ord_end, std::memory_order_seq_cst);
  if (w->ordered_sleepers.load(std::memory_order_seq_cst) != 0) {
    w->ordered_event.fetch_add(1, std::memory_order_seq_cst);
    core::futex_wake(&w->ordered_event, INT_MAX);
  }
  s.ord_begin = s.ord_end = -1;
}

void ordered_took(long begin, long end) {
  POOLSHIM_ASSERT(0 <= begin && begin < end);  // a chunk's logical numbers, in order
  me().ord_begin = begin;
  me().ord_end = end;
}

namespace {

bool start(int sched, long start, long end, long incr, long chunk, bool ordered, long* istart,
           long* iend) {
  sched = resolve_sched(sched, &chunk);
  return loop_begin(sched, start, end, incr, chunk, ordered, nullptr, nullptr, istart, iend);
}

struct Begin {
  void (*init)(WorkShare*, void*);
  void* arg;
  uintptr_t* reductions;
  size_t mem_size;
};

void init_begin(WorkShare* w, void* arg) {
  Begin& b = *static_cast<Begin*>(arg);
  if (b.init != nullptr) b.init(w, b.arg);
  if (b.reductions != nullptr) ws_reductions_first(w, b.reductions);
  if (b.mem_size != SIZE_MAX) {
    w->mem = xcalloc(1, b.mem_size > 0 ? b.mem_size : 1);
  }
}

void end_loop(bool barrier) {
  WorkShare* w = me().ws;
  if (w != nullptr) ordered_pass(w);
  ws_leave();
  if (barrier) team_barrier();
}

}  // namespace

template <typename T>
int resolve_sched(long sched, T* chunk) {
  int kind = static_cast<int>(sched & ~kSchedMonotonic);
  bool any = false;
  if (kind == kDynamicAnyOrder) kind = kDynamic, any = true;
  if (kind != kStatic && kind != kDynamic && kind != kGuided) {  // runtime, or auto: runtime
    kind = icv().run_sched;
    long c = icv().run_chunk;
    if (kind != kStatic && kind != kDynamic && kind != kGuided) kind = kStatic, c = 0;
    if (kind != kStatic && c < 1) c = 1;
    *chunk = static_cast<T>(c);
    return kind;
  }
  if (kind != kStatic && *chunk < 1) *chunk = 1;  // a chunk of 0 would hand out nothing forever
  return any ? kDynamicAnyOrder : kind;
}
template int resolve_sched<long>(long, long*);
template int resolve_sched<ull>(long, ull*);

WorkShare::~WorkShare() { ws_free_extras(this); }

void ws_free_extras(WorkShare* w) {
  free(w->mem);
  w->mem = nullptr;
  free(w->doacross);
  w->doacross = nullptr;
  steal_free(w);
}

// The thread outside any team reuses one construct (it cannot meet two at once: a construct
// met inside another's body binds to a region's team). A team of 1 has a list as any team.
WorkShare* ws_enter(void (*init)(WorkShare*, void*), void* arg, bool* first) {
  ThreadState& s = me();
  Team* t = s.team;
  WorkShare* w;
  *first = true;
  if (t == nullptr) {
    w = &t_solo;
    w->left = 0;
    w->copyprivate = nullptr;
    w->task_reductions = nullptr;
    ws_free_extras(w);
    init(w, arg);
  } else {
    unsigned long k = s.ws_seq++;
    t->ws_lock.lock();
    w = t->ws_head;
    while (w != nullptr && w->seq != k) w = w->next;
    if (w == nullptr) {
      w = new WorkShare;
      w->seq = k;
      init(w, arg);
      w->next = t->ws_head;
      t->ws_head = w;
    } else {
      *first = false;
    }
    t->ws_lock.unlock();
  }
  s.ws = w;
  return w;
}

WorkShare* ws_begin(void (*init)(WorkShare*, void*), void* arg, uintptr_t* reductions, void** mem,
                    bool* first) {
  if (reductions != nullptr) ws_reductions_begin();
  Begin b{init, arg, reductions,
          mem != nullptr ? static_cast<size_t>(reinterpret_cast<uintptr_t>(*mem)) : SIZE_MAX};
  WorkShare* w = ws_enter(init_begin, &b, first);
  if (!*first && reductions != nullptr) ws_reductions_join(w, reductions);
  if (mem != nullptr) *mem = w->mem;
  return w;
}

void ws_leave() {
  ThreadState& s = me();
  Team* t = s.team;
  WorkShare* w = s.ws;
  s.ws = nullptr;
  if (w == nullptr || w == &t_solo || t == nullptr) return;
  t->ws_lock.lock();
  POOLSHIM_ASSERT(w->left < t->n);  // each member leaves a construct once
  if (++w->left == t->n) {
    WorkShare** p = &t->ws_head;
    while (*p != w) p = &(*p)->next;
    *p = w->next;
    delete w;
  }
  t->ws_lock.unlock();
}

// For GOMP_parallel_loop_*: a construct set up before its team of n starts.
WorkShare* preset_loop(unsigned n, int sched, long start_, long end, long incr, long chunk) {
  sched = resolve_sched(sched, &chunk);
  WorkShare* w = new WorkShare;
  loop_init(w, sched, start_, end, incr, chunk, false, n);
  return w;
}

bool loop_start(int sched, long s, long e, long incr, long chunk, bool ordered, long* istart,
                long* iend) {
  return start(sched, s, e, incr, chunk, ordered, istart, iend);
}
void loop_end(bool barrier) { end_loop(barrier); }

void ordered_start() {
  ThreadState& s = me();
  if (s.ws != nullptr && s.ws->ordered && s.ord_begin >= 0) wait_turn(s.ws, s.ord_begin);
}

}  // namespace poolshim::abi::openmp::runtime
