// Native worksharing: loops (static, dynamic, guided, runtime, their nonmonotonic spellings,
// ordered), sections, and the construct list they share (state.h).
//
// Iterations are split as libgomp splits them (its iter.c, read for the arithmetic): static
// without a chunk gives member i one block, the first n % T members one iteration more; static
// with a chunk deals chunks round-robin; dynamic hands out chunks in order; guided hands out
// ceil(remaining / T), at least the chunk, where remaining is (end - next) / incr rounded down
// with the loop's own end (as libgomp: a last partial step counts as none). A loop's end is
// kept as given (or start when it has no iterations); chunk ends are start + k * incr, but the
// last dynamic or guided chunk, and a team of 1's block, end at it. The same split means the
// same partial sums.
// Ordered: chunks take turns in the order of their logical iteration numbers; a member passes
// the turn on when it moves to its next chunk or leaves the loop.
#include <sched.h>
#include <stdlib.h>

#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"
#include "core/futex.h"

namespace poolshim::abi::openmp::runtime {
namespace {

thread_local WorkShare t_solo;  // the construct of a team of 1 (no sharing, no lock)

long iterations(long start, long end, long incr) {
  if (incr > 0) return start >= end ? 0 : (end - start + incr - 1) / incr;
  return start <= end ? 0 : (end - start + incr + 1) / incr;
}

struct LoopArgs {
  int sched;
  long start, end, incr, chunk;
  bool ordered;
  const DoacrossSpec* dx;
};

void init_loop(WorkShare* w, void* arg) {
  const LoopArgs& a = *static_cast<LoopArgs*>(arg);
  loop_init(w, a.sched, a.start, a.end, a.incr, a.chunk, a.ordered);
  if (a.dx != nullptr) doacross_init(w, *a.dx, static_cast<unsigned long>(a.chunk));
}

unsigned team_n() {
  Team* t = me().team;
  return t ? t->n : 1;
}

bool static_next(WorkShare* w, long* istart, long* iend) {
  ThreadState& s = me();
  unsigned nthreads = team_n(), i = s.num;
  if (nthreads == 1) {  // libgomp: the whole range at once, to the loop's own end
    if (s.static_trip > 0) return false;
    s.static_trip = 1;
    *istart = w->start;
    *iend = w->end;
    return w->start != w->end;
  }
  long n = iterations(w->start, w->end, w->incr);
  long s0, e0;
  if (w->chunk == 0) {
    if (s.static_trip > 0) return false;
    s.static_trip = 1;
    long q = n / nthreads, t = n % nthreads;
    if (i < t) {
      t = 0;
      ++q;
    }
    s0 = q * i + t;
    e0 = s0 + q;
    if (s0 >= e0) return false;
  } else {
    s0 = (static_cast<long>(s.static_trip) * nthreads + i) * w->chunk;
    if (s0 >= n) return false;
    e0 = s0 + w->chunk < n ? s0 + w->chunk : n;
    ++s.static_trip;
  }
  *istart = w->start + s0 * w->incr;
  *iend = w->start + e0 * w->incr;
  return true;
}

bool dynamic_next(WorkShare* w, long* istart, long* iend) {
  long chunk = w->chunk * w->incr;
  long s = w->next_iter.load(std::memory_order_relaxed);
  long e;
  do {
    if (s == w->end) return false;
    long left = w->end - s;
    e = (w->incr > 0 ? left > chunk : left < chunk) ? s + chunk : w->end;
  } while (!w->next_iter.compare_exchange_weak(s, e, std::memory_order_relaxed));
  *istart = s;
  *iend = e;
  return true;
}

bool guided_next(WorkShare* w, long* istart, long* iend) {
  unsigned nthreads = team_n();
  long s = w->next_iter.load(std::memory_order_relaxed);
  long e;
  do {
    if (s == w->end) return false;
    long n = (w->end - s) / w->incr;
    long q = (n + nthreads - 1) / nthreads;
    if (q < w->chunk) q = w->chunk;
    e = q <= n ? s + q * w->incr : w->end;
  } while (!w->next_iter.compare_exchange_weak(s, e, std::memory_order_relaxed));
  *istart = s;
  *iend = e;
  return true;
}

void wait_turn(WorkShare* w, long mine) {
  for (unsigned i = 1; w->ordered_turn.load(std::memory_order_acquire) != mine; ++i) {
    core::cpu_relax();
    if ((i & 255) == 0) sched_yield();
  }
}

}  // namespace

// Ordered loops: before a member takes its next chunk (or leaves), its current chunk's turn
// must have come, and passes on.
void ordered_pass(WorkShare* w) {
  ThreadState& s = me();
  if (!w->ordered || s.ord_begin < 0) return;
  wait_turn(w, s.ord_begin);
  w->ordered_turn.store(s.ord_end, std::memory_order_release);
  s.ord_begin = s.ord_end = -1;
}

void ordered_took(long begin, long end) {
  me().ord_begin = begin;
  me().ord_end = end;
}

namespace {

bool next(long* istart, long* iend) {
  WorkShare* w = me().ws;
  if (w == nullptr) return false;
  ordered_pass(w);
  bool got;
  switch (w->sched) {
    case kDynamic: got = dynamic_next(w, istart, iend); break;
    case kGuided: got = guided_next(w, istart, iend); break;
    default: got = static_next(w, istart, iend); break;
  }
  if (got && w->ordered)
    ordered_took((*istart - w->start) / w->incr, iterations(w->start, *iend, w->incr));
  return got;
}

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
    w->mem = calloc(1, b.mem_size > 0 ? b.mem_size : 1);
    if (w->mem == nullptr) abort();  // as libgomp's gomp_malloc_cleared
  }
}

void end_loop(bool barrier) {
  WorkShare* w = me().ws;
  if (w != nullptr) ordered_pass(w);
  ws_leave();
  if (barrier) team_barrier();
}

}  // namespace

int resolve_sched(long sched, long* chunk) {
  sched &= ~kSchedMonotonic;
  int kind = static_cast<int>(sched);
  if (kind != kStatic && kind != kDynamic && kind != kGuided) {  // runtime, or auto: runtime
    kind = icv().run_sched;
    *chunk = icv().run_chunk;
    if (kind != kStatic && kind != kDynamic && kind != kGuided) kind = kStatic, *chunk = 0;
  }
  if (kind != kStatic && *chunk < 1) *chunk = 1;  // a chunk of 0 would hand out nothing forever
  return kind;
}

WorkShare::~WorkShare() { ws_free_extras(this); }

void ws_free_extras(WorkShare* w) {
  free(w->mem);
  w->mem = nullptr;
  free(w->doacross);
  w->doacross = nullptr;
}

void loop_init(WorkShare* w, int sched, long start, long end, long incr, long chunk, bool ordered) {
  w->ull = false;
  w->sched = sched;
  w->chunk = chunk;
  w->start = start;
  w->incr = incr;
  w->end = iterations(start, end, incr) == 0 ? start : end;
  w->next_iter.store(start, std::memory_order_relaxed);
  w->ordered = ordered;
  w->ordered_turn.store(0, std::memory_order_relaxed);
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

bool loop_begin(int sched, long start_, long end, long incr, long chunk, bool ordered,
                uintptr_t* reductions, void** mem, long* istart, long* iend,
                const DoacrossSpec* dx) {
  LoopArgs a{sched, start_, end, incr, chunk, ordered, dx};
  bool first;
  ws_begin(init_loop, &a, reductions, mem, &first);
  me().static_trip = 0;
  me().ord_begin = me().ord_end = -1;
  if (istart == nullptr) return true;
  return next(istart, iend);
}

void ws_leave() {
  ThreadState& s = me();
  Team* t = s.team;
  WorkShare* w = s.ws;
  s.ws = nullptr;
  if (w == nullptr || w == &t_solo || t == nullptr) return;
  t->ws_lock.lock();
  if (++w->left == t->n) {
    WorkShare** p = &t->ws_head;
    while (*p != w) p = &(*p)->next;
    *p = w->next;
    delete w;
  }
  t->ws_lock.unlock();
}

// For GOMP_parallel_loop_*: a construct set up before the team starts.
WorkShare* preset_loop(int sched, long start_, long end, long incr, long chunk) {
  sched = resolve_sched(sched, &chunk);
  WorkShare* w = new WorkShare;
  loop_init(w, sched, start_, end, incr, chunk, false);
  return w;
}

bool loop_next(long* istart, long* iend) { return next(istart, iend); }
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
