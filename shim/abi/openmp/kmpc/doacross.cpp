// Native __kmpc doacross loops (ordered(n) with depend(sink) / depend(source)): clang calls
// __kmpc_doacross_init in every member before the loop's own init (a static one, or a dispatch of
// its unordered schedule), __kmpc_doacross_wait and _post with iteration vectors inside it, and
// __kmpc_doacross_fini in every member after it.
//
// libomp's scheme, which needs nothing of the loop's schedule: one bit per iteration of the whole
// nest (the vector's coordinates linearized, the first dimension slowest), in a zeroed block the
// team shares. A post sets its iteration's bit (release); a wait looks until the awaited bit is
// set (acquire), yielding at each miss, and returns at once for a vector outside the nest's
// bounds (a sink before the first iteration or past the last). The block is the mem block of a
// construct of its own in the team's worksharing list (runtime/loop.h, ws_begin): every member
// enters it at init, in the same order as the loop's construct that follows, and leaves it at fini;
// the last to leave frees it, when no member can wait on it any more. In a team of 1, and outside
// any region, there is no other member to wait for: post and wait are fences, as in libomp's
// serialized teams.
//
// Whether the awaited iteration's chunk has started needs no care: a chunk is taken in iteration
// order (dynamic, guided) or belongs to a member that runs now (static), and a sink names an
// earlier iteration, so every wait ends.
#include <sched.h>
#include <stdlib.h>

#include <atomic>
#include <cstdint>

#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "base/assert.h"
#include "core/futex.h"

// libomp's kmp_dim: one loop of the nest, its bounds inclusive. clang-14 passes lo 0, up the
// loop's trip count and st 1 (one iteration more than the loop runs: no vector names it).
struct kmp_dim {
  int64_t lo;
  int64_t up;
  int64_t st;
};

namespace poolshim::abi::openmp::kmpc {

// A member's view of its loop's doacross state (its own copy: each member computes it from the
// same dims; the bits are the team's).
struct Doacross {
  struct Dim {
    int64_t lo, up;
    uint64_t step;   // |st|
    bool down;       // st < 0
    uint64_t range;  // iterations of this loop
  };
  runtime::WorkShare* ws;       // the construct whose mem block holds the bits
  std::atomic<uint32_t>* bits;  // one per iteration
  uint64_t iterations;          // product of the ranges
  int32_t dims;
  Dim dim[1];  // `dims` entries
};

namespace {

// A loop of the nest as libomp counts it: its iterations for a positive or a negative step; none
// for a loop that runs none, or a zero step (no position to compute).
Doacross::Dim dim_of(const kmp_dim& d) {
  Doacross::Dim r{d.lo, d.up, 0, d.st < 0, 0};
  if (d.st == 0) return r;
  r.step = d.st > 0 ? static_cast<uint64_t>(d.st) : 0 - static_cast<uint64_t>(d.st);
  if (r.down ? d.lo >= d.up : d.up >= d.lo) {
    const uint64_t span = r.down ? static_cast<uint64_t>(d.lo) - static_cast<uint64_t>(d.up)
                                 : static_cast<uint64_t>(d.up) - static_cast<uint64_t>(d.lo);
    r.range = span / r.step + 1;
  }
  return r;
}

// The linear position of iteration vector v (the first loop slowest), or false when a
// coordinate is outside its loop.
inline __attribute__((always_inline)) bool position(const Doacross& x, const int64_t* v,
                                                    uint64_t* pos) {
  uint64_t p = 0;
  for (int32_t i = 0; i < x.dims; ++i) {
    const Doacross::Dim& d = x.dim[i];
    if (d.down ? v[i] > d.lo || v[i] < d.up : v[i] < d.lo || v[i] > d.up) return false;
    const uint64_t offset = d.down ? static_cast<uint64_t>(d.lo) - static_cast<uint64_t>(v[i])
                                   : static_cast<uint64_t>(v[i]) - static_cast<uint64_t>(d.lo);
    p = p * d.range + (d.step == 1 ? offset : offset / d.step);  // clang's loops: step 1
  }
  POOLSHIM_ASSERT(p < x.iterations);
  *pos = p;
  return true;
}

// The calling member's doacross loop (ThreadState's: a nested region's end restores it).
Doacross* current() { return static_cast<Doacross*>(runtime::me().doacross); }
void set_current(Doacross* x) { runtime::me().doacross = x; }

// The word holding vector vec's bit in the calling member's loop, and the bit; nullptr, after a
// fence, when it has none (a team of 1, no loop, a vector outside the nest): a post or a wait is
// then that fence, as libomp's in a serialized team.
std::atomic<uint32_t>* word_of(const int64_t* vec, uint32_t* bit) {
  const Doacross* x = current();
  uint64_t p;
  if (x == nullptr || !position(*x, vec, &p)) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return nullptr;
  }
  *bit = uint32_t{1} << (p % 32);
  return &x->bits[p / 32];
}

}  // namespace
}  // namespace poolshim::abi::openmp::kmpc

using namespace poolshim::abi::openmp::kmpc;
namespace rt = poolshim::abi::openmp::runtime;

extern "C" {

void psk_doacross_init(ident_t*, int32_t, int32_t dims, const kmp_dim* dim) {
  set_current(nullptr);
  rt::Team* t = rt::me().team;
  if (t == nullptr || t->n <= 1 || dims <= 0) return;
  auto* x = static_cast<Doacross*>(
      rt::xmalloc(sizeof(Doacross) + static_cast<size_t>(dims - 1) * sizeof(Doacross::Dim)));
  x->dims = dims;
  x->iterations = 1;
  for (int32_t i = 0; i < dims; ++i) {
    x->dim[i] = dim_of(dim[i]);
    if (__builtin_mul_overflow(x->iterations, x->dim[i].range, &x->iterations))
      x->iterations = UINT64_MAX;
  }
  // No iteration: no post or wait can come. Every member sees the same dims, so all skip the
  // construct together.
  if (x->iterations == 0) {
    free(x);
    return;
  }
  // Beyond what one allocation can hold, the block's allocation fails as any does (xmalloc.h).
  const uint64_t words = x->iterations / 32 + 1;
  const size_t bytes = words > SIZE_MAX / 4 ? SIZE_MAX : static_cast<size_t>(words) * 4;
  // A construct of its own, entered as the loop's would be; the member's current construct is
  // what it was (none: the loop's own init comes next).
  rt::WorkShare* outer = rt::me().ws;
  void* mem = reinterpret_cast<void*>(bytes);
  bool first = false;
  x->ws = rt::ws_begin(nullptr, nullptr, nullptr, &mem, &first);
  x->bits = static_cast<std::atomic<uint32_t>*>(mem);
  rt::me().ws = outer;
  set_current(x);
}

void psk_doacross_post(ident_t*, int32_t, const int64_t* vec) {
  uint32_t bit;
  std::atomic<uint32_t>* w = word_of(vec, &bit);
  if (w != nullptr && (w->load(std::memory_order_relaxed) & bit) == 0)
    w->fetch_or(bit, std::memory_order_release);
}

void psk_doacross_wait(ident_t*, int32_t, const int64_t* vec) {
  uint32_t bit;
  const std::atomic<uint32_t>* w = word_of(vec, &bit);
  if (w == nullptr) return;
  // The iteration is being run by a member that runs now (see above), which posts the ones
  // before it on the same line: each look takes that line from it. So a miss yields the CPU, as
  // libomp's wait does, which lets the poster run ahead and keeps this member's later looks from
  // missing (a spin with backoff measured 1.5-1.9x slower on a wavefront: docs/openmp.md).
  while ((w->load(std::memory_order_acquire) & bit) == 0) {
    poolshim::core::cpu_relax();
    sched_yield();
  }
}

void psk_doacross_fini(ident_t*, int32_t) {
  Doacross* x = current();
  if (x == nullptr) return;
  rt::WorkShare* outer = rt::me().ws;
  rt::me().ws = x->ws;
  rt::ws_leave();  // the last member to leave frees the construct and its bits
  rt::me().ws = outer;
  free(x);
  set_current(nullptr);
}

}  // extern "C"
