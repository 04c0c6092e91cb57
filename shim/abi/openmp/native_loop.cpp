// Native worksharing: loops (static, dynamic, guided, runtime, their nonmonotonic spellings,
// ordered), sections, and the construct list they share (native_state.h).
//
// Iterations are split as libgomp splits them (its iter.c, read for the arithmetic): static
// without a chunk gives member i one block, the first n % T members one iteration more; static
// with a chunk deals chunks round-robin; dynamic hands out chunks in order; guided hands out
// ceil(remaining / T), at least the chunk. The same static split means the same partial sums.
// Ordered: chunks take turns in the order of their logical iteration numbers; a member passes
// the turn on when it moves to its next chunk or leaves the loop.
#include <sched.h>

#include "abi/openmp/native_state.h"
#include "core/futex.h"

namespace poolshim::abi::openmp::native {
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
};

void init_loop(WorkShare* w, void* arg) {
  const LoopArgs& a = *static_cast<LoopArgs*>(arg);
  w->sched = a.sched == kAuto ? kStatic : a.sched;
  w->chunk = a.chunk;
  w->start = a.start;
  w->incr = a.incr;
  w->end = a.start + iterations(a.start, a.end, a.incr) * a.incr;
  w->next_iter.store(a.start, std::memory_order_relaxed);
  w->ordered = a.ordered;
  w->ordered_turn.store(0, std::memory_order_relaxed);
}

unsigned team_n() {
  Team* t = me().team;
  return t ? t->n : 1;
}

bool static_next(WorkShare* w, long* istart, long* iend) {
  ThreadState& s = me();
  unsigned nthreads = team_n(), i = s.num;
  long n = (w->end - w->start) / w->incr;
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

// Ordered loops: before a member takes its next chunk (or leaves), its current chunk's turn
// must have come, and passes on.
void pass_turn(WorkShare* w) {
  ThreadState& s = me();
  if (!w->ordered || s.ord_begin < 0) return;
  wait_turn(w, s.ord_begin);
  w->ordered_turn.store(s.ord_end, std::memory_order_release);
  s.ord_begin = s.ord_end = -1;
}

bool next(long* istart, long* iend) {
  WorkShare* w = me().ws;
  if (w == nullptr) return false;
  pass_turn(w);
  bool got;
  switch (w->sched) {
    case kDynamic: got = dynamic_next(w, istart, iend); break;
    case kGuided: got = guided_next(w, istart, iend); break;
    default: got = static_next(w, istart, iend); break;
  }
  if (got && w->ordered) {
    me().ord_begin = (*istart - w->start) / w->incr;
    me().ord_end = (*iend - w->start) / w->incr;
  }
  return got;
}

bool start(int sched, long start, long end, long incr, long chunk, bool ordered, long* istart,
           long* iend) {
  if (sched == 0) {  // runtime
    sched = icv().run_sched;
    chunk = icv().run_chunk;
    if (sched == kAuto) sched = kStatic, chunk = 0;
  } else if (sched != kStatic && chunk < 1) {
    chunk = 1;
  }
  LoopArgs a{sched, start, end, incr, chunk, ordered};
  bool first;
  ws_enter(init_loop, &a, &first);
  me().static_trip = 0;
  me().ord_begin = me().ord_end = -1;
  return next(istart, iend);
}

void end_loop(bool barrier) {
  WorkShare* w = me().ws;
  if (w != nullptr) pass_turn(w);
  ws_leave();
  if (barrier) team_barrier();
}

}  // namespace

WorkShare* ws_enter(void (*init)(WorkShare*, void*), void* arg, bool* first) {
  ThreadState& s = me();
  Team* t = s.team;
  WorkShare* w;
  *first = true;
  if (t == nullptr || t->n <= 1) {
    w = &t_solo;
    w->left = 0;
    w->copyprivate = nullptr;
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
  if (sched == 0) {
    sched = icv().run_sched;
    chunk = icv().run_chunk;
    if (sched == kAuto) sched = kStatic, chunk = 0;
  } else if (sched != kStatic && chunk < 1) {
    chunk = 1;
  }
  WorkShare* w = new WorkShare;
  LoopArgs a{sched, start_, end, incr, chunk, false};
  init_loop(w, &a);
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

}  // namespace poolshim::abi::openmp::native
