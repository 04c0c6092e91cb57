// Native doacross loops (ordered(n) with depend(sink) / depend(source)): the
// GOMP_loop_doacross_* and GOMP_loop_ull_doacross_* starts and GOMP_doacross_post / _wait (long
// and ull).
//
// As libgomp's ordered.c does it (read for the scheme): the loop's first dimension is split
// into entities that one member runs in order: a member's static share, a dynamic chunk, or one
// guided iteration. Each entity has a cache line holding the last iteration vector it posted
// (plus one). When the vector's coordinates fit in 64 bits together it is one flattened word
// (coordinate i shifted by the bits of the later ones), compared as a number; otherwise one word
// per coordinate, posted last coordinate first and read first coordinate first, which never
// shows a vector later than the one posted. A wait finds the entity that runs the awaited
// iteration and spins until that entity posted it or a later one. In a team of 1 (or a loop
// with an empty dimension) there is nothing to wait for: post and wait are fences.
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"
#include "abi/openmp/runtime/xmalloc.h"
#include "core/futex.h"

namespace poolshim::abi::openmp::runtime {

struct Doacross {
  unsigned ncounts;
  bool flattened;
  unsigned long chunk;           // the schedule's chunk (static 0: one block per member)
  unsigned long q, t, boundary;  // static without a chunk: member i's block as the loop splits it
  size_t elt_words;              // words per entity (a multiple of a cache line)
  unsigned long* array;          // num_ents entities
  unsigned shift[1];             // flattened: coordinate i's shift (ncounts entries)
};

namespace {

constexpr unsigned kMaxBits = 64;

unsigned long* entity(const Doacross* d, unsigned long ent) {
  return d->array + ent * d->elt_words;
}

// The entity that runs first-dimension iteration `first` (a wait's target).
unsigned long owner(const WorkShare* w, const Doacross* d, unsigned long first) {
  if (w->sched == kStatic) {
    if (d->chunk == 0)
      return first < d->boundary ? first / (d->q + 1) : (first - d->boundary) / d->q + d->t;
    return first / d->chunk % me().team->n;
  }
  if (w->sched == kGuided) return first;
  return first / d->chunk;
}

// The entity the caller runs iteration `first` in (a post's).
unsigned long mine(const WorkShare* w, const Doacross* d, unsigned long first) {
  if (w->sched == kStatic) return me().num;
  if (w->sched == kGuided) return first;
  return first / d->chunk;
}

void backoff(unsigned i) {
  core::cpu_relax();
  if ((i & 255) == 0) sched_yield();
}

Doacross* state() {
  WorkShare* w = me().ws;
  return w != nullptr ? w->doacross : nullptr;
}

void dx_post(const unsigned long* counts) {
  WorkShare* w = me().ws;
  Doacross* d = w != nullptr ? w->doacross : nullptr;
  if (d == nullptr) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return;
  }
  unsigned long* a = entity(d, mine(w, d, counts[0]));
  if (d->flattened) {
    unsigned long v = 0;
    for (unsigned i = 0; i < d->ncounts; ++i) v |= counts[i] << d->shift[i];
    __atomic_store_n(a, v + 1, __ATOMIC_RELEASE);
    return;
  }
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  for (unsigned i = d->ncounts; i-- > 0;)
    if (__atomic_load_n(&a[i], __ATOMIC_RELAXED) != counts[i] + 1)
      __atomic_store_n(&a[i], counts[i] + 1, __ATOMIC_RELEASE);
}

// vec: the awaited iteration vector (ncounts coordinates).
void dx_wait(const unsigned long* vec) {
  WorkShare* w = me().ws;
  Doacross* d = w != nullptr ? w->doacross : nullptr;
  if (d == nullptr) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return;
  }
  unsigned long* a = entity(d, owner(w, d, vec[0]));
  if (d->flattened) {
    unsigned long v = 0;
    for (unsigned i = 0; i < d->ncounts; ++i) v |= vec[i] << d->shift[i];
    for (unsigned i = 1; __atomic_load_n(a, __ATOMIC_ACQUIRE) <= v; ++i) backoff(i);
    return;
  }
  for (unsigned spin = 1;; ++spin) {
    unsigned i = 0;
    for (; i < d->ncounts; ++i) {
      unsigned long want = vec[i] + 1, cur = __atomic_load_n(&a[i], __ATOMIC_ACQUIRE);
      if (want < cur) {
        i = d->ncounts;
        break;
      }
      if (want > cur) break;
    }
    if (i == d->ncounts) break;
    backoff(spin);
  }
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

unsigned bits_for(unsigned long count) {
  return count == 1 ? 1 : kMaxBits - static_cast<unsigned>(__builtin_clzl(count - 1));
}

}  // namespace

void doacross_init(WorkShare* w, const DoacrossSpec& dx, unsigned long chunk) {
  w->doacross = nullptr;
  Team* t = me().team;
  if (t == nullptr || t->n <= 1 || dx.ncounts == 0) return;
  unsigned bits = 0;
  for (unsigned i = 0; i < dx.ncounts; ++i) {
    if (dx.counts[i] == 0) return;  // no iteration: post and wait cannot be called
    if (bits <= kMaxBits) bits += bits_for(dx.counts[i]);
  }
  bool flattened = bits <= kMaxBits;
  unsigned long num_ents;
  if (w->sched == kStatic)
    num_ents = t->n;
  else if (w->sched == kGuided)
    num_ents = dx.counts[0];
  else
    num_ents = (dx.counts[0] - 1) / chunk + 1;
  size_t words = flattened ? 1 : dx.ncounts;
  size_t elt_words = (words * sizeof(unsigned long) + 63) / 64 * (64 / sizeof(unsigned long));
  size_t head = offsetof(Doacross, shift) + dx.ncounts * sizeof(unsigned);
  size_t bytes = head + 63 + num_ents * elt_words * sizeof(unsigned long);
  Doacross* d = static_cast<Doacross*>(xmalloc(bytes));
  d->ncounts = dx.ncounts;
  d->flattened = flattened;
  d->chunk = chunk;
  d->elt_words = elt_words;
  d->array = reinterpret_cast<unsigned long*>((reinterpret_cast<uintptr_t>(d) + head + 63) &
                                              ~static_cast<uintptr_t>(63));
  memset(d->array, 0, num_ents * elt_words * sizeof(unsigned long));
  if (flattened) {
    unsigned shift = 0;
    for (unsigned i = dx.ncounts; i > 0; --i) {
      d->shift[i - 1] = shift;
      shift += bits_for(dx.counts[i - 1]);
    }
  }
  if (w->sched == kStatic && chunk == 0) {
    d->q = dx.counts[0] / num_ents;
    d->t = dx.counts[0] % num_ents;
    d->boundary = d->t * (d->q + 1);
  } else {
    d->q = d->t = d->boundary = 0;
  }
  w->doacross = d;
}

}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

namespace {

constexpr unsigned kMaxVector = 64;  // collapsed loops a wait reads off its arguments at once

bool doacross_long(long sched, unsigned ncounts, long* counts, long chunk, uintptr_t* reductions,
                   void** mem, long* istart, long* iend) {
  int kind = resolve_sched(sched, &chunk);
  DoacrossSpec dx{ncounts, reinterpret_cast<const unsigned long*>(counts)};
  return loop_begin(kind, 0, counts[0], 1, chunk, false, reductions, mem, istart, iend, &dx);
}

bool doacross_ull(long sched, unsigned ncounts, ull* counts, ull chunk, uintptr_t* reductions,
                  void** mem, ull* istart, ull* iend) {
  int kind = resolve_sched(sched, &chunk);
  DoacrossSpec dx{ncounts, reinterpret_cast<const unsigned long*>(counts)};
  return loop_ull_begin(kind, true, 0, counts[0], 1, chunk, false, reductions, mem, istart, iend,
                        &dx);
}

// Reads the rest of a wait's vector off its arguments (T: long or unsigned long long).
template <typename T>
void wait_va(T first, va_list ap) {
  Doacross* d = state();
  if (d == nullptr) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return;
  }
  unsigned long vec[kMaxVector];
  unsigned long* v = d->ncounts <= kMaxVector
                         ? vec
                         : static_cast<unsigned long*>(xmalloc(d->ncounts * sizeof(unsigned long)));
  v[0] = static_cast<unsigned long>(first);
  for (unsigned i = 1; i < d->ncounts; ++i) v[i] = static_cast<unsigned long>(va_arg(ap, T));
  dx_wait(v);
  if (v != vec) free(v);
}

}  // namespace

extern "C" {

#define PSN_DOACROSS(kind, sched)                                                             \
  bool psn_GOMP_loop_doacross_##kind##_start(unsigned n, long* counts, long chunk, long* is,  \
                                             long* ie) {                                      \
    return doacross_long(sched, n, counts, chunk, nullptr, nullptr, is, ie);                  \
  }                                                                                           \
  bool psn_GOMP_loop_ull_doacross_##kind##_start(unsigned n, ull* counts, ull chunk, ull* is, \
                                                 ull* ie) {                                   \
    return doacross_ull(sched, n, counts, chunk, nullptr, nullptr, is, ie);                   \
  }
PSN_DOACROSS(static, kStatic)
PSN_DOACROSS(dynamic, kDynamic)
PSN_DOACROSS(guided, kGuided)
#undef PSN_DOACROSS

bool psn_GOMP_loop_doacross_runtime_start(unsigned n, long* counts, long* is, long* ie) {
  return doacross_long(0, n, counts, 0, nullptr, nullptr, is, ie);
}
bool psn_GOMP_loop_ull_doacross_runtime_start(unsigned n, ull* counts, ull* is, ull* ie) {
  return doacross_ull(0, n, counts, 0, nullptr, nullptr, is, ie);
}
bool psn_GOMP_loop_doacross_start(unsigned n, long* counts, long sched, long chunk, long* is,
                                  long* ie, uintptr_t* reductions, void** mem) {
  return doacross_long(sched, n, counts, chunk, reductions, mem, is, ie);
}
bool psn_GOMP_loop_ull_doacross_start(unsigned n, ull* counts, long sched, ull chunk, ull* is,
                                      ull* ie, uintptr_t* reductions, void** mem) {
  return doacross_ull(sched, n, counts, chunk, reductions, mem, is, ie);
}

void psn_GOMP_doacross_post(long* counts) { dx_post(reinterpret_cast<unsigned long*>(counts)); }
void psn_GOMP_doacross_ull_post(ull* counts) { dx_post(reinterpret_cast<unsigned long*>(counts)); }

void psn_GOMP_doacross_wait(long first, ...) {
  va_list ap;
  va_start(ap, first);
  wait_va<long>(first, ap);
  va_end(ap);
}
void psn_GOMP_doacross_ull_wait(ull first, ...) {
  va_list ap;
  va_start(ap, first);
  wait_va<ull>(first, ap);
  va_end(ap);
}

}  // extern "C"
