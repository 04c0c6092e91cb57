// How a loop's iterations are split among the team, written once for the two iteration types of
// libgomp's ABI: long (GOMP_loop_*) and unsigned long long (GOMP_loop_ull_*, for iteration
// variables that do not fit a long). Split as libgomp's iter.c and iter_ull.c split them (read for
// the arithmetic): static without a chunk gives member i one block, the first n % T members one
// iteration more; static with a chunk deals chunks round-robin; dynamic hands out chunks of chunk
// * incr in order; guided hands out ceil(remaining / T) (at least the chunk), where remaining
// counts whole steps to the loop's own end (as libgomp: a last partial step counts as none). A
// loop's end is kept as given (or start when it has no iterations); chunk ends are start + k *
// incr, but the last dynamic or guided chunk, and a team of 1's block, end at it. The same split
// means the same partial sums.
//
// Direction: a long loop counts up when incr > 0. An unsigned long long loop counts up when the
// compiler says so (`up`); counting down, incr is the two's complement of the step, so every
// difference below is taken in the loop's direction and compared in it.
#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"
#include "base/assert.h"

namespace poolshim::abi::openmp::runtime {
namespace {

// Where a loop of T keeps its bounds in a WorkShare, and its arithmetic.
template <typename T>
struct Iter;

template <>
struct Iter<long> {
  static constexpr bool kUll = false;
  static long& start(WorkShare* w) { return w->start; }
  static long& end(WorkShare* w) { return w->end; }
  static long& incr(WorkShare* w) { return w->incr; }
  static long& chunk(WorkShare* w) { return w->chunk; }
  static std::atomic<long>& next(WorkShare* w) { return w->next_iter; }
  static bool up(const WorkShare* w) { return w->incr > 0; }
  static bool up(bool, long incr) { return incr > 0; }
  // Iterations from a to b, rounded up (0 when b is not beyond a): ceil(span / step) as
  // (span - 1) / step + 1, in unsigned arithmetic, where b - a + incr - 1 would overflow a long
  // (a step of LONG_MAX / 8 up to LONG_MAX).
  static long count(const WorkShare* w, long a, long b) {
    const long incr = w->incr;
    if (incr > 0) return a >= b ? 0 : static_cast<long>((ull(b) - ull(a) - 1) / ull(incr) + 1);
    return a <= b ? 0 : static_cast<long>((ull(a) - ull(b) - 1) / (0 - ull(incr)) + 1);
  }
  // Whole steps from a to b (b beyond a).
  static long steps(const WorkShare* w, long a, long b) { return (b - a) / w->incr; }
};

template <>
struct Iter<ull> {
  static constexpr bool kUll = true;
  static ull& start(WorkShare* w) { return w->start_ull; }
  static ull& end(WorkShare* w) { return w->end_ull; }
  static ull& incr(WorkShare* w) { return w->incr_ull; }
  static ull& chunk(WorkShare* w) { return w->chunk_ull; }
  static std::atomic<ull>& next(WorkShare* w) { return w->next_ull; }
  static bool up(const WorkShare* w) { return w->up; }
  static bool up(bool up, ull) { return up; }
  // Iterations from a to b, rounded up (b need not be on the step grid); 0 when a == b. As the
  // long count, (span - 1) / step + 1: span + step - 1 would wrap near the type's ends.
  static ull count(const WorkShare* w, ull a, ull b) {
    if (a == b) return 0;
    if (w->up) return (b - a - 1) / w->incr_ull + 1;
    return (a - b - 1) / -w->incr_ull + 1;
  }
  static ull steps(const WorkShare* w, ull a, ull b) {
    return w->up ? (b - a) / w->incr_ull : (a - b) / -w->incr_ull;
  }
};

template <typename T>
struct LoopArgs {
  int sched;
  bool up;  // unsigned long long loops only (a long loop's direction is incr's sign)
  T start, end, incr, chunk;
  bool ordered;
  const DoacrossSpec* dx;
  unsigned claimers = 0;  // the members that will claim chunks; 0: the calling member's team
};

unsigned team_n() {
  Team* t = me().team;
  return t ? t->n : 1;
}

// A dynamic loop's claims by fetch_add (dynamic_next): every member's last claim, the one that
// finds the loop exhausted, still adds a chunk, so `next` may run up to n chunks past the end
// (one a member; a member stops claiming once it found none). That is safe when end plus n + 1
// chunks (libgomp's margin, iter.c) does not overflow T in the loop's direction.
bool claims_cannot_overflow(const WorkShare* w, unsigned n) {
  long step, margin, last;
  if (w->ull) {
    unsigned long long mag = w->up ? w->incr_ull : 0 - w->incr_ull, room;
    if (__builtin_mul_overflow(w->chunk_ull, mag, &room) ||
        __builtin_mul_overflow(room, static_cast<unsigned long long>(n) + 1, &room))
      return false;
    return w->up ? w->end_ull <= ~0ULL - room : w->end_ull >= room;
  }
  return !__builtin_mul_overflow(w->chunk, w->incr, &step) &&
         !__builtin_mul_overflow(step, static_cast<long>(n) + 1, &margin) &&
         !__builtin_add_overflow(w->end, margin, &last);
}

// As libgomp's gomp_loop_init / gomp_loop_ull_init (sched resolved).
template <typename T>
void init_loop(WorkShare* w, const LoopArgs<T>& a) {
  using I = Iter<T>;
  w->ull = I::kUll;
  if (I::kUll) w->up = a.up;
  w->sched = a.sched;
  I::chunk(w) = a.chunk;
  I::start(w) = a.start;
  I::incr(w) = a.incr;
  bool empty = I::up(a.up, a.incr) ? a.start >= a.end : a.start <= a.end;
  I::end(w) = empty ? a.start : a.end;
  I::next(w).store(a.start, std::memory_order_relaxed);
  const unsigned claimers = a.claimers != 0 ? a.claimers : team_n();
  // In any order: stealing, where the loop is neither ordered nor doacross; otherwise (and where
  // steal_init declines) the shared counter of a monotonic dynamic loop.
  if (a.sched == kDynamicAnyOrder) {
    w->sched = kDynamic;
    if (!a.ordered && a.dx == nullptr) {
      T n = I::count(w, a.start, I::end(w)), chunk = I::chunk(w);
      steal_init(w, static_cast<unsigned long long>(n / chunk + (n % chunk != 0)), claimers);
    }
  }
  w->claim_by_add = w->sched == kDynamic && claims_cannot_overflow(w, claimers);
  w->ordered = a.ordered;
  w->ordered_turn.store(0, std::memory_order_relaxed);
}

template <typename T>
void init_loop_arg(WorkShare* w, void* arg) {
  const LoopArgs<T>& a = *static_cast<LoopArgs<T>*>(arg);
  init_loop(w, a);
  if (a.dx != nullptr) doacross_init(w, *a.dx, static_cast<unsigned long>(a.chunk));
}

template <typename T>
bool static_next(WorkShare* w, T* istart, T* iend) {
  using I = Iter<T>;
  ThreadState& s = me();
  T nthreads = team_n(), i = s.num;
  if (nthreads == 1) {  // libgomp: the whole range at once, to the loop's own end
    if (s.static_trip > 0) return false;
    s.static_trip = 1;
    *istart = I::start(w);
    *iend = I::end(w);
    return I::start(w) != I::end(w);
  }
  T n = I::count(w, I::start(w), I::end(w));
  T s0, e0, chunk = I::chunk(w);
  if (chunk == 0) {
    if (s.static_trip > 0) return false;
    s.static_trip = 1;
    T q = n / nthreads, t = n % nthreads;
    if (i < t) {
      t = 0;
      ++q;
    }
    s0 = q * i + t;
    e0 = s0 + q;
    if (s0 >= e0) return false;
  } else {
    s0 = (static_cast<T>(s.static_trip) * nthreads + i) * chunk;
    if (s0 >= n) return false;
    e0 = s0 + chunk < n ? s0 + chunk : n;
    ++s.static_trip;
  }
  POOLSHIM_ASSERT(s0 < e0 && e0 <= n);  // a non-empty block inside the loop's iterations
  *istart = I::start(w) + s0 * I::incr(w);
  *iend = I::start(w) + e0 * I::incr(w);
  return true;
}

// A dynamic loop in any order: chunk number k runs from start + k * chunk steps, the last one to
// the loop's end (as dynamic_next's last chunk). Unsigned arithmetic: a long loop's offset wraps
// as a ull one's does, and start + offset is inside the loop.
template <typename T>
bool steal_next(WorkShare* w, T* istart, T* iend) {
  using I = Iter<T>;
  uint32_t k;
  if (!steal_claim(w, me().num, &k)) return false;
  const ull step = static_cast<ull>(I::chunk(w)) * static_cast<ull>(I::incr(w));
  const T s = static_cast<T>(static_cast<ull>(I::start(w)) + k * step);
  *istart = s;
  *iend = k == w->steal_last ? I::end(w) : static_cast<T>(static_cast<ull>(s) + step);
  return true;
}

template <typename T>
bool dynamic_next(WorkShare* w, T* istart, T* iend) {
  using I = Iter<T>;
  if (w->steal != nullptr) return steal_next(w, istart, iend);
  T chunk = I::chunk(w) * I::incr(w), end = I::end(w);
  bool up = I::up(w);
  T s, e;
  if (w->claim_by_add) {  // one read-modify-write per claim, as libgomp's mode 1
    s = I::next(w).fetch_add(chunk, std::memory_order_relaxed);
    if (up ? s >= end : s <= end) return false;
    T left = end - s;
    e = (up ? left > chunk : left < chunk) ? s + chunk : end;
    POOLSHIM_ASSERT(up ? s < e : s > e);  // a non-empty chunk, before the loop's end
    *istart = s;
    *iend = e;
    return true;
  }
  s = I::next(w).load(std::memory_order_relaxed);
  do {
    if (s == end) return false;
    T left = end - s;
    e = (up ? left > chunk : left < chunk) ? s + chunk : end;
  } while (!I::next(w).compare_exchange_weak(s, e, std::memory_order_relaxed));
  *istart = s;
  *iend = e;
  return true;
}

template <typename T>
bool guided_next(WorkShare* w, T* istart, T* iend) {
  using I = Iter<T>;
  T nthreads = team_n(), end = I::end(w);
  T s = I::next(w).load(std::memory_order_relaxed);
  T e;
  do {
    if (s == end) return false;
    T n = I::steps(w, s, end);
    T q = (n + nthreads - 1) / nthreads;
    if (q < I::chunk(w)) q = I::chunk(w);
    e = q <= n ? s + q * I::incr(w) : end;
  } while (!I::next(w).compare_exchange_weak(s, e, std::memory_order_relaxed));
  *istart = s;
  *iend = e;
  return true;
}

template <typename T>
bool next_chunk(T* istart, T* iend) {
  using I = Iter<T>;
  WorkShare* w = me().ws;
  if (w == nullptr || (I::kUll && !w->ull)) return false;
  if (w->ordered) ordered_pass(w);  // a call only where there is a turn to pass
  bool got;
  switch (w->sched) {
    case kDynamic: got = dynamic_next(w, istart, iend); break;
    case kGuided: got = guided_next(w, istart, iend); break;
    default: got = static_next(w, istart, iend); break;
  }
  if (got && w->ordered)
    ordered_took(static_cast<long>(I::count(w, I::start(w), *istart)),
                 static_cast<long>(I::count(w, I::start(w), *iend)));
  return got;
}

template <typename T>
bool begin_loop(const LoopArgs<T>& a, uintptr_t* reductions, void** mem, T* istart, T* iend) {
  LoopArgs<T> arg = a;
  bool first;
  ws_begin(init_loop_arg<T>, &arg, reductions, mem, &first);
  me().static_trip = 0;
  me().ord_begin = me().ord_end = -1;
  if (istart == nullptr) return true;
  return next_chunk(istart, iend);
}

}  // namespace

void loop_init(WorkShare* w, int sched, long start, long end, long incr, long chunk, bool ordered,
               unsigned claimers) {
  init_loop(w,
            LoopArgs<long>{sched, incr > 0, start, end, incr, chunk, ordered, nullptr, claimers});
}

bool loop_begin(int sched, long start, long end, long incr, long chunk, bool ordered,
                uintptr_t* reductions, void** mem, long* istart, long* iend,
                const DoacrossSpec* dx) {
  return begin_loop(LoopArgs<long>{sched, incr > 0, start, end, incr, chunk, ordered, dx},
                    reductions, mem, istart, iend);
}

bool loop_next(long* istart, long* iend) { return next_chunk(istart, iend); }

bool loop_ull_begin(int sched, bool up, ull start, ull end, ull incr, ull chunk, bool ordered,
                    uintptr_t* reductions, void** mem, ull* istart, ull* iend,
                    const DoacrossSpec* dx) {
  return begin_loop(LoopArgs<ull>{sched, up, start, end, incr, chunk, ordered, dx}, reductions, mem,
                    istart, iend);
}

bool loop_ull_next(ull* istart, ull* iend) { return next_chunk(istart, iend); }

}  // namespace poolshim::abi::openmp::runtime
