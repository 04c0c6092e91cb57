// The native __kmpc loop entry points (kmpc.h): static schedules computed on the spot, as libomp
// does, from the member's number and the team's size; dynamic ones (__kmpc_dispatch_*) as work
// shares of the runtime that serves libgomp's ABI, through its unsigned long long loops.
//
// libomp's bounds are inclusive (lb, ub, the chunk's last iteration); GOMP's end is exclusive.
// Every iteration type is carried as an unsigned 64-bit value, a signed one biased by 2^63 so
// that its order is kept: int32 loops then never come near the ends of the range; an int64 or
// uint64 loop whose last iteration lies within one increment of the type's top is not supported
// (its exclusive end would wrap), as with GOMP's own unsigned long long loops.
#include <type_traits>

#include "abi/openmp/kmpc/kmpc_thread.h"
#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/runtime/entry_points.h"

namespace poolshim::abi::openmp::kmpc {
namespace {

// libomp's schedule numbers (kmp.h's enum sched_type) and its modifier bits.
enum : int32_t {
  kStaticChunked = 33,
  kStatic = 34,
  kDynamicChunked = 35,
  kGuidedChunked = 36,
  kRuntime = 37,
  kAuto = 38,
  kTrapezoidal = 39,
  kGuidedIterative = 42,
  kGuidedAnalytical = 43,
  kStaticSteal = 44,
  kStaticBalancedChunked = 45,
  // distribute (dist_schedule): the league's teams share the loop, as threads share a for.
  kDistributeStaticChunked = 91,
  kDistributeStatic = 92,
  // An ordered loop's schedule is its unordered one plus kOrdered (kmp_ord_static_chunked 65 ..
  // kmp_ord_trapezoidal 71).
  kOrdered = 32,
  kOrderedFirst = 65,
  kOrderedLast = 71,
  kNonmonotonic = 1 << 30,
  kModifiers = (1 << 29) | kNonmonotonic,  // monotonic, nonmonotonic
};

template <class T>
using Signed = std::make_signed_t<T>;
template <class T>
using Unsigned = std::make_unsigned_t<T>;

template <class T>
void static_init(int32_t schedtype, int32_t* plast, T* plower, T* pupper, Signed<T>* pstride,
                 Signed<T> incr, Signed<T> chunk) {
  using UT = Unsigned<T>;
  if (incr > 0 ? *pupper < *plower : *plower < *pupper) {  // no iteration at all
    if (plast != nullptr) *plast = 0;
    *pstride = incr;
    return;
  }
  const int32_t sched = schedtype & ~kModifiers;
  const bool distribute = sched == kDistributeStatic || sched == kDistributeStaticChunked;
  const UT nth = static_cast<UT>(distribute ? psn_omp_get_num_teams() : psn_omp_get_num_threads());
  const UT tid = static_cast<UT>(distribute ? psn_omp_get_team_num() : psn_omp_get_thread_num());
  if (nth <= 1) {  // the whole range, as libomp's serialized team
    if (plast != nullptr) *plast = 1;
    *pstride = static_cast<Signed<T>>(incr > 0 ? UT(*pupper) - UT(*plower) + 1
                                               : UT(0) - (UT(*plower) - UT(*pupper) + 1));
    return;
  }
  const UT step = incr > 0 ? UT(incr) : UT(0) - UT(incr);
  const UT trip = (incr > 0 ? UT(*pupper) - UT(*plower) : UT(*plower) - UT(*pupper)) / step + 1;
  const UT uincr = UT(incr);
  auto at = [&](UT k) { return static_cast<T>(UT(*plower) + uincr * k); };
  switch (sched) {
    case kStaticChunked:
    case kDistributeStaticChunked: {
      const UT c = chunk < 1 ? 1 : UT(chunk);
      *pstride = static_cast<Signed<T>>(uincr * c * nth);
      if (plast != nullptr) *plast = tid == ((trip - 1) / c) % nth;
      *plower = at(c * tid);
      *pupper = static_cast<T>(UT(*plower) + uincr * (c - 1));
      return;
    }
    case kStaticBalancedChunked: {  // for simd: chunks a multiple of the (power of 2) chunk
      const T old_upper = *pupper;
      const UT c0 = chunk < 1 ? 1 : UT(chunk);
      const UT c = ((trip + nth - 1) / nth + c0 - 1) & ~(c0 - 1);
      if (plast != nullptr) *plast = tid == (trip - 1) / c;
      *plower = at(c * tid);
      *pupper = static_cast<T>(UT(*plower) + uincr * (c - 1));
      if (incr > 0 ? *pupper > old_upper : *pupper < old_upper) *pupper = old_upper;
      return;
    }
    default: {  // kStatic, kDistributeStatic and anything else: libomp's balanced blocks
      if (trip < nth) {
        if (tid < trip)
          *pupper = *plower = at(tid);
        else
          *plower = static_cast<T>(UT(*pupper) + uincr);
        if (plast != nullptr) *plast = tid == trip - 1;
      } else {
        const UT small = trip / nth, extras = trip % nth;
        *plower = at(tid * small + (tid < extras ? tid : extras));
        *pupper = static_cast<T>(UT(*plower) + uincr * (small - (tid < extras ? 0 : 1)));
        if (plast != nullptr) *plast = tid == nth - 1;
      }
      *pstride = static_cast<Signed<T>>(trip);
      return;
    }
  }
}

template <class T>
constexpr uint64_t kBias = std::is_signed_v<T> ? uint64_t{1} << 63 : 0;
template <class T>
uint64_t to_domain(T v) {
  return static_cast<uint64_t>(
             static_cast<std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>(v)) +
         kBias<T>;
}
template <class T>
T from_domain(uint64_t v) {
  return static_cast<T>(v - kBias<T>);
}

template <class T>
void dispatch_init(int32_t schedule, T lb, T ub, Signed<T> st, Signed<T> chunk) {
  DispatchState& d = kmpc_thread().dispatch;
  const bool up = st > 0;
  const uint64_t start = to_domain(lb), stride = static_cast<uint64_t>(int64_t{st});
  const uint64_t step = up ? stride : uint64_t{0} - stride;
  const bool empty = up ? lb > ub : lb < ub;
  const uint64_t span = up ? to_domain(ub) - start : start - to_domain(ub);
  const uint64_t last = start + (span / step) * stride;
  const uint64_t end = empty ? start : last + stride;
  const uint64_t c = chunk < 1 ? 1 : static_cast<uint64_t>(chunk);
  unsigned long long is = 0, ie = 0;  // GOMP's type (uint64_t is unsigned long here)
  int32_t sched = schedule & ~kModifiers;
  // An ordered loop is GOMP's ordered work share of the same schedule: its chunks' turns pass as
  // a member takes its next chunk or leaves (runtime/loop.cpp), and __kmpc_ordered waits for
  // the current chunk's turn, so __kmpc_end_ordered and __kmpc_dispatch_fini have nothing to do.
  const bool ordered = sched >= kOrderedFirst && sched <= kOrderedLast;
  if (ordered) sched -= kOrdered;
  bool got;
  switch (sched) {
    case kStatic:
    case kAuto:  // libgomp's auto: static, no chunk
      got = ordered ? psn_GOMP_loop_ull_ordered_static_start(up, start, end, stride, 0, &is, &ie)
                    : psn_GOMP_loop_ull_static_start(up, start, end, stride, 0, &is, &ie);
      break;
    case kStaticChunked:
    case kStaticBalancedChunked:
      got = ordered ? psn_GOMP_loop_ull_ordered_static_start(up, start, end, stride, c, &is, &ie)
                    : psn_GOMP_loop_ull_static_start(up, start, end, stride, c, &is, &ie);
      break;
    case kRuntime:
      got = ordered ? psn_GOMP_loop_ull_ordered_runtime_start(up, start, end, stride, &is, &ie)
                    : psn_GOMP_loop_ull_runtime_start(up, start, end, stride, &is, &ie);
      break;
    case kGuidedChunked:
    case kTrapezoidal:
    case kGuidedIterative:
    case kGuidedAnalytical:
      got = ordered ? psn_GOMP_loop_ull_ordered_guided_start(up, start, end, stride, c, &is, &ie)
                    : psn_GOMP_loop_ull_guided_start(up, start, end, stride, c, &is, &ie);
      break;
    default:  // kDynamicChunked, kStaticSteal, and anything else
      // In any order (stealing) where libomp steals too: kStaticSteal, or the nonmonotonic
      // modifier that clang adds to `schedule(dynamic)` without `ordered`.
      if (ordered)
        got = psn_GOMP_loop_ull_ordered_dynamic_start(up, start, end, stride, c, &is, &ie);
      else if (sched == kStaticSteal || (schedule & kNonmonotonic) != 0)
        got = psn_GOMP_loop_ull_nonmonotonic_dynamic_start(up, start, end, stride, c, &is, &ie);
      else
        got = psn_GOMP_loop_ull_dynamic_start(up, start, end, stride, c, &is, &ie);
      break;
  }
  if (!got) is = ie = 0;  // nothing for this member: next() ends the work share at once
  d = DispatchState{true, got, up, is, ie, stride, last};
}

// The next chunk as [*plb, *pub], inclusive; 0 when the loop is done, which ends this member's
// part of the work share (the compiler calls no fini for unordered loops).
template <class T>
int32_t dispatch_next(int32_t* plast, T* plb, T* pub, Signed<T>* pst) {
  DispatchState& d = kmpc_thread().dispatch;
  if (!d.active) return 0;
  unsigned long long is = d.is, ie = d.ie;
  if (d.pending) {
    d.pending = false;
  } else if (d.is == d.ie || !psn_GOMP_loop_ull_next(&is, &ie)) {
    psn_GOMP_loop_end_nowait();
    d.active = false;
    return 0;
  }
  const uint64_t step = d.up ? d.stride : uint64_t{0} - d.stride;
  const uint64_t count = ((d.up ? ie - is : is - ie) + step - 1) / step;
  const uint64_t chunk_last = is + (count - 1) * d.stride;
  *plb = from_domain<T>(is);
  *pub = from_domain<T>(chunk_last);
  *pst = static_cast<Signed<T>>(static_cast<int64_t>(d.stride));
  if (plast != nullptr) *plast = chunk_last == d.last;
  return 1;
}

}  // namespace
}  // namespace poolshim::abi::openmp::kmpc

using namespace poolshim::abi::openmp::kmpc;

extern "C" {

#define PSK_LOOP(suffix, T)                                                                     \
  void psk_for_static_init_##suffix(ident_t*, int32_t, int32_t sched, int32_t* plast, T* lower, \
                                    T* upper, Signed<T>* stride, Signed<T> incr,                \
                                    Signed<T> chunk) {                                          \
    static_init<T>(sched, plast, lower, upper, stride, incr, chunk);                            \
  }                                                                                             \
  void psk_dispatch_init_##suffix(ident_t*, int32_t, int32_t sched, T lb, T ub, Signed<T> st,   \
                                  Signed<T> chunk) {                                            \
    dispatch_init<T>(sched, lb, ub, st, chunk);                                                 \
  }                                                                                             \
  int32_t psk_dispatch_next_##suffix(ident_t*, int32_t, int32_t* plast, T* lb, T* ub,           \
                                     Signed<T>* st) {                                           \
    return dispatch_next<T>(plast, lb, ub, st);                                                 \
  }
PSK_LOOP(4, int32_t)
PSK_LOOP(4u, uint32_t)
PSK_LOOP(8, int64_t)
PSK_LOOP(8u, uint64_t)
#undef PSK_LOOP

void psk_for_static_fini(ident_t*, int32_t) {}

// Ordered loops (dispatch_init above): an iteration's ordered region waits for its chunk's turn.
void psk_ordered(ident_t*, int32_t) { psn_GOMP_ordered_start(); }
void psk_end_ordered(ident_t*, int32_t) {}
void psk_dispatch_fini_4(ident_t*, int32_t) {}
void psk_dispatch_fini_4u(ident_t*, int32_t) {}
void psk_dispatch_fini_8(ident_t*, int32_t) {}
void psk_dispatch_fini_8u(ident_t*, int32_t) {}

}  // extern "C"
