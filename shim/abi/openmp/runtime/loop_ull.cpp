// Native unsigned long long loops (GOMP_loop_ull_*): the long loops of loop.cpp for
// iteration variables that do not fit a long. The compiler passes up (the loop counts up) and,
// counting down, the step as its two's complement, so every difference below is taken in the
// loop's direction. Split as libgomp's iter_ull.c splits them (read for the arithmetic): the
// same static blocks and round-robin chunks, dynamic chunks of chunk * incr, guided chunks of
// ceil(remaining / T) (at least the chunk); a team of 1 gets the whole range at once.
#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// Iterations from a to b in w's direction (b need not be on the step grid: rounded up).
ull span(const WorkShare* w, ull a, ull b) {
  if (w->up) return (b - a + w->incr_ull - 1) / w->incr_ull;
  return (a - b - w->incr_ull - 1) / -w->incr_ull;
}

unsigned team_n() {
  Team* t = me().team;
  return t ? t->n : 1;
}

struct UllArgs {
  int sched;
  bool up;
  ull start, end, incr, chunk;
  bool ordered;
  const DoacrossSpec* dx;
};

void init_ull(WorkShare* w, void* arg) {
  const UllArgs& a = *static_cast<UllArgs*>(arg);
  w->ull = true;
  w->up = a.up;
  w->sched = a.sched;
  w->chunk_ull = a.sched == kDynamic ? a.chunk * a.incr : a.chunk;
  w->start_ull = a.start;
  w->incr_ull = a.incr;
  bool empty = a.up ? a.start >= a.end : a.start <= a.end;
  w->end_ull = empty ? a.start : a.end;
  w->next_ull.store(a.start, std::memory_order_relaxed);
  w->ordered = a.ordered;
  w->ordered_turn.store(0, std::memory_order_relaxed);
  if (a.dx != nullptr) doacross_init(w, *a.dx, static_cast<unsigned long>(a.chunk));
}

bool static_next(WorkShare* w, ull* istart, ull* iend) {
  ThreadState& s = me();
  unsigned nthreads = team_n();
  ull i = s.num;
  if (nthreads == 1) {
    if (s.static_trip > 0) return false;
    s.static_trip = 1;
    *istart = w->start_ull;
    *iend = w->end_ull;
    return w->start_ull != w->end_ull;
  }
  ull n = w->start_ull == w->end_ull ? 0 : span(w, w->start_ull, w->end_ull);
  ull s0, e0;
  if (w->chunk_ull == 0) {
    if (s.static_trip > 0) return false;
    s.static_trip = 1;
    ull q = n / nthreads, t = n % nthreads;
    if (i < t) {
      t = 0;
      ++q;
    }
    s0 = q * i + t;
    e0 = s0 + q;
    if (s0 >= e0) return false;
  } else {
    s0 = (static_cast<ull>(s.static_trip) * nthreads + i) * w->chunk_ull;
    if (s0 >= n) return false;
    e0 = s0 + w->chunk_ull;
    if (e0 > n) e0 = n;
    ++s.static_trip;
  }
  *istart = s0 * w->incr_ull + w->start_ull;
  *iend = e0 * w->incr_ull + w->start_ull;
  return true;
}

bool dynamic_next(WorkShare* w, ull* istart, ull* iend) {
  ull end = w->end_ull;
  ull s = w->next_ull.load(std::memory_order_relaxed);
  ull e;
  do {
    if (s == end) return false;
    ull chunk = w->chunk_ull, left = end - s;
    if (w->up ? chunk > left : chunk < left) chunk = left;
    e = s + chunk;
  } while (!w->next_ull.compare_exchange_weak(s, e, std::memory_order_relaxed));
  *istart = s;
  *iend = e;
  return true;
}

bool guided_next(WorkShare* w, ull* istart, ull* iend) {
  ull nthreads = team_n(), end = w->end_ull, incr = w->incr_ull;
  ull s = w->next_ull.load(std::memory_order_relaxed);
  ull e;
  do {
    if (s == end) return false;
    ull n = w->up ? (end - s) / incr : (s - end) / -incr;
    ull q = (n + nthreads - 1) / nthreads;
    if (q < w->chunk_ull) q = w->chunk_ull;
    e = q <= n ? s + q * incr : end;
  } while (!w->next_ull.compare_exchange_weak(s, e, std::memory_order_relaxed));
  *istart = s;
  *iend = e;
  return true;
}

}  // namespace

bool loop_ull_next(ull* istart, ull* iend) {
  WorkShare* w = me().ws;
  if (w == nullptr || !w->ull) return false;
  ordered_pass(w);
  bool got;
  switch (w->sched) {
    case kDynamic: got = dynamic_next(w, istart, iend); break;
    case kGuided: got = guided_next(w, istart, iend); break;
    default: got = static_next(w, istart, iend); break;
  }
  if (got && w->ordered)
    ordered_took(static_cast<long>(span(w, w->start_ull, *istart)),
                 static_cast<long>(span(w, w->start_ull, *iend)));
  return got;
}

bool loop_ull_begin(int sched, bool up, ull start, ull end, ull incr, ull chunk, bool ordered,
                    uintptr_t* reductions, void** mem, ull* istart, ull* iend,
                    const DoacrossSpec* dx) {
  UllArgs a{sched, up, start, end, incr, chunk, ordered, dx};
  bool first;
  ws_begin(init_ull, &a, reductions, mem, &first);
  me().static_trip = 0;
  me().ord_begin = me().ord_end = -1;
  if (istart == nullptr) return true;
  return loop_ull_next(istart, iend);
}

}  // namespace poolshim::abi::openmp::runtime
