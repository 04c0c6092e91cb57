// Index arithmetic: every multi-dimensional, tiled and dynamic pthreadpool variant is a flat
// range of items handed to ptp::run_ranges(), which gives back runs [begin, end) of consecutive
// items, each run on one thread (docs/pthreadpool-coverage.md).
//
//  - Static variants: one item per tile of the grid, in the order of the header's serial
//    snippet (last dimension fastest). A run decodes its first item once (D-1 divisions) and
//    then walks the grid incrementally, as upstream pthreadpool does: no division per item.
//    Which dimensions are tiled is a template argument (kTiled, bit d = dimension d), so an
//    untiled dimension costs one increment and one compare per item.
//  - Dynamic variants (*_dynamic*): the header promises calls whose start is a multiple of the
//    tile and whose count is a multiple of the tile unless it reaches the end of the range, with
//    counts "chosen to minimize the number of calls while keeping the load balanced". Each tile
//    is an item; a run of consecutive tiles is one contiguous span, split at row boundaries as
//    upstream does: within one row, a run of tiles of the last dimension is one call; when the
//    last dimension is a single tile, a run of rows of the second-last dimension is one call.
//    The pool's runs are long first and shorter as the lanes empty (core/job.h), so calls are
//    few; a serial call is one call per row.
//  - Progress: every walk asks the run for each item (or, for a dynamic call, for all the tiles
//    of the call) just before it starts them, so the items it has not started stay available to
//    other threads while one of its items blocks (core/run.h).
//
// Overflow: ranges may be anywhere up to SIZE_MAX. A start is idx * tile < range, so it never
// overflows; the end of a tile or of a span of tiles is never computed as start + count or as
// n * tile unchecked: counts are min(range - start, ...) (see span_count), and the walk decides
// "last tile of this dimension" by range - start <= tile.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi/pthreadpool/run.h"

namespace poolshim::abi::ptp::grid {

template <size_t D>
struct Shape {
  size_t range[D];
  size_t tile[D];   // >= 1
  size_t tiles[D];  // ceil(range / tile)
  size_t total;     // product of tiles; 0 when any range is 0
};

// Builds the shape. A tile of 0 (upstream divides by it) is taken as 1. Returns false when the
// number of tiles does not fit in size_t (nothing can run such a call). Dimensions whose bit is
// clear in kTiled are untiled (tile 1, no division: this runs on every call).
template <size_t D, unsigned kTiled = ~0u>
inline bool make_shape(Shape<D>& s, const size_t (&range)[D], const size_t (&tile)[D]) {
  s.total = 1;
  for (size_t d = 0; d < D; ++d) {
    s.range[d] = range[d];
    if (((kTiled >> d) & 1u) != 0) {
      s.tile[d] = tile[d] == 0 ? 1 : tile[d];
      s.tiles[d] = range[d] / s.tile[d] + (range[d] % s.tile[d] != 0);
    } else {
      s.tile[d] = 1;
      s.tiles[d] = range[d];
    }
    if (__builtin_mul_overflow(s.total, s.tiles[d], &s.total)) return false;
  }
  return true;
}

// Elements covered by n consecutive tiles of size `tile` from `start` within [0, range):
// min(n * tile, range - start), without overflowing.
inline size_t span_count(size_t start, size_t n, size_t tile, size_t range) {
  size_t rem = range - start, c;
  if (__builtin_mul_overflow(n, tile, &c) || c > rem) return rem;
  return c;
}

// A position in the grid: the current tile's start and count in every dimension. seek() costs
// D-1 divisions; next() none. Untiled dimensions (bit clear in kTiled) have tile 1, count 1.
template <size_t D, unsigned kTiled>
struct Cursor {
  size_t start[D];
  size_t count[D];

  static constexpr bool tiled(size_t d) { return ((kTiled >> d) & 1u) != 0; }

  void set(const Shape<D>& s, size_t d, size_t idx) {
    if (tiled(d)) {
      start[d] = idx * s.tile[d];
      size_t rem = s.range[d] - start[d];
      count[d] = rem < s.tile[d] ? rem : s.tile[d];
    } else {
      start[d] = idx;
      count[d] = 1;
    }
  }

  // Tile `item` (row-major over s.tiles).
  void seek(const Shape<D>& s, size_t item) {
    if (item == 0) {  // every serial call, and the first run of every call: no division
      for (size_t d = 0; d < D; ++d) set(s, d, 0);
      return;
    }
    for (size_t d = D; d-- > 1;) {
      size_t q = item / s.tiles[d];
      set(s, d, item - q * s.tiles[d]);
      item = q;
    }
    set(s, 0, item);
  }

  // The next tile in the snippet's order. Must not be called on the last tile of the grid.
  void next(const Shape<D>& s) { carry(s, D); }

  // Moves dimensions [0, top) on by one tile (dimension top-1 fastest), with carry; the
  // dimensions from `top` on are left alone. Returns false when it wrapped past the end of the
  // grid (every dimension in [0, top) back at 0).
  bool carry(const Shape<D>& s, size_t top) {
    for (size_t d = top; d-- > 0;) {
      if (tiled(d)) {
        size_t rem = s.range[d] - start[d];
        if (rem > s.tile[d]) {  // not the last tile of this dimension
          start[d] += s.tile[d];
          rem -= s.tile[d];
          count[d] = rem < s.tile[d] ? rem : s.tile[d];
          return true;
        }
        start[d] = 0;
        count[d] = s.range[d] < s.tile[d] ? s.range[d] : s.tile[d];
      } else {
        if (++start[d] != s.range[d]) return true;
        start[d] = 0;
      }
    }
    return false;
  }
};

// The items of a run from tile `begin`, in the snippet's order, on one thread, while the run
// grants them (core::Taker::take: another thread may take the ones not started yet): seek once,
// then a tight loop along the last dimension, carrying into the outer ones once per row. The
// walk also stops when the grid is exhausted, so a run without an end (the serial path) walks the
// whole grid without the tile counts or their product (no division at all).
template <size_t D, unsigned kTiled, typename Body>
inline void walk(const Shape<D>& s, const Body& body, size_t thread_index, size_t begin,
                 core::Run& run) {
  using C = Cursor<D, kTiled>;
  constexpr size_t L = D - 1;  // the last (fastest) dimension
  core::Taker taker(run);
  if (!taker.take(begin)) return;
  C cur;
  cur.seek(s, begin);
  for (size_t item = begin;;) {
    if (C::tiled(L)) {
      const size_t tile = s.tile[L], range = s.range[L];
      for (;;) {
        body(thread_index, cur.start, cur.count);
        if (!taker.take(++item)) return;
        size_t rem = range - cur.start[L];
        if (rem <= tile) break;  // that was the row's last tile
        cur.start[L] += tile;
        rem -= tile;
        cur.count[L] = rem < tile ? rem : tile;
      }
      cur.start[L] = 0;
      cur.count[L] = range < tile ? range : tile;
    } else {
      const size_t range = s.range[L];
      for (;;) {
        body(thread_index, cur.start, cur.count);
        if (!taker.take(++item)) return;
        if (++cur.start[L] == range) break;
      }
      cur.start[L] = 0;
    }
    if (!cur.carry(s, L)) return;  // past the grid's last tile
  }
}

void warn_too_large(const char* what);

// The s.total tiles of a shape on the pool: every run the pool hands out is walked by Walk (walk()
// for the static variants, dynamic_run() for the dynamic ones). The shape and the body are
// copied into one context (a few stores on the caller): a worker then reads one block of the
// caller's stack, not a block of pointers and then what they point to (a miss less per call).
template <size_t D, typename Body,
          void (*Walk)(const Shape<D>&, const Body&, size_t, size_t, core::Run&)>
void run_shape(pthreadpool_t pool, const char* what, const Shape<D>& s, uint32_t flags,
               core::Work work, const Body& body) {
  struct Ctx {
    Shape<D> s;
    Body body;
  } ctx{s, body};
  auto range_fn = [](void* p, size_t thread_index, size_t begin, core::Run& run) {
    auto* c = static_cast<Ctx*>(p);
    Walk(c->s, c->body, thread_index, begin, run);
  };
  run_ranges(resolve(pool, what), s.total, range_fn, &ctx, flags, work);
}

// body(thread_index, const size_t* start, const size_t* count) once per tile. kTiled: bit d set
// when dimension d is tiled (untiled dimensions must pass tile 1).
template <size_t D, unsigned kTiled, typename Body>
void run_tiles(pthreadpool_t pool, const char* what, const size_t (&range)[D],
               const size_t (&tile)[D], uint32_t flags, core::Work work, const Body& body) {
  Shape<D> s;
  if (pool == nullptr && (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) == 0) {
    // The NULL pool: walk the whole grid on the caller, no division. When the product of the
    // ranges fits in size_t, so does the number of tiles (make_shape would succeed).
    size_t cells = 1;
    bool fits = true;
    for (size_t d = 0; d < D; ++d) {
      if (range[d] == 0) return;
      s.range[d] = range[d];
      s.tile[d] = ((kTiled >> d) & 1u) == 0 || tile[d] == 0 ? 1 : tile[d];
      fits &= !__builtin_mul_overflow(cells, range[d], &cells);
    }
    if (fits) {
      core::Run all(0, ~size_t{0});  // ends with the grid
      return walk<D, kTiled>(s, body, 0, 0, all);
    }
  }
  if (!make_shape<D, kTiled>(s, range, tile)) return warn_too_large(what);
  if (s.total == 0) return;
  run_shape<D, Body, walk<D, kTiled, Body>>(pool, what, s, flags, work, body);
}

// One run of a dynamic variant from tile `begin`: the span of tiles the run grants, split at row
// boundaries. The last K dimensions are dynamic; the first D-K are untiled. Decodes the span's
// first tile once, then walks. Each surface call takes its tiles from the run at once
// (core::Taker::take_upto): the tiles of a call are started together, and no tile is promised to a
// call before it starts, so another thread can take every tile no call has started.
template <size_t D, size_t K, typename Body>
void dynamic_run(const Shape<D>& s, const Body& body, size_t thread_index, size_t begin,
                 core::Run& run) {
  static_assert(K == 1 || K == 2, "one or two dynamic dimensions");
  static_assert(D >= K, "dimensions");
  size_t pos = begin;
  constexpr size_t a = D - K;                              // first dynamic dimension
  const size_t cols = s.tiles[D - 1];                      // tiles of the last dimension
  const size_t plane = K == 2 ? cols * s.tiles[a] : cols;  // tiles per outer index
  const bool rows = K == 2 && cols > 1;                    // calls are split at row boundaries

  size_t start[D], count[D];
  size_t outer = pos / plane;
  size_t off = pos - outer * plane;
  for (size_t d = a; d-- > 0;) {  // the outer index over the untiled dimensions [0, a)
    size_t q = outer / s.range[d];
    start[d] = outer - q * s.range[d];
    count[d] = 1;
    outer = q;
  }
  size_t row = 0, col = off;
  if constexpr (K == 2) {
    row = off / cols;
    col = off - row * cols;
  }
  // One surface call per iteration: the rest of the plane when it is one call (one dynamic
  // dimension, or one tile per row), else the rest of the row; fewer tiles when the run ends.
  core::Taker taker(run);
  while (true) {
    const size_t want = rows ? cols - col : plane - off;
    const size_t got = taker.take_upto(pos, pos + want);
    if (got <= pos) return;
    const size_t m = got - pos;
    if constexpr (K == 1) {
      start[D - 1] = off * s.tile[D - 1];
      count[D - 1] = span_count(start[D - 1], m, s.tile[D - 1], s.range[D - 1]);
    } else if (!rows) {
      // One tile per row: a run of rows is one call over the whole last dimension.
      start[a] = row * s.tile[a];
      count[a] = span_count(start[a], m, s.tile[a], s.range[a]);
      start[D - 1] = 0;
      count[D - 1] = s.range[D - 1];
    } else {
      start[a] = row * s.tile[a];
      count[a] = span_count(start[a], 1, s.tile[a], s.range[a]);
      start[D - 1] = col * s.tile[D - 1];
      count[D - 1] = span_count(start[D - 1], m, s.tile[D - 1], s.range[D - 1]);
    }
    body(thread_index, start, count);
    pos = got;
    if (m < want || pos == s.total) return;  // the run (or the grid) ends here
    off += m;
    if (rows) {
      col = 0;  // the call took the rest of the row
      ++row;
    }
    if (off < plane) continue;
    // The next plane: the outer index moves on (untiled: increment with carry).
    off = 0;
    row = 0;
    col = 0;
    for (size_t d = a; d-- > 0;) {
      if (++start[d] != s.range[d]) break;
      start[d] = 0;
    }
  }
}

// body(thread_index, start, count) per call, counts possibly spanning several tiles. The pool
// hands out runs of tiles (long ones first, shorter as the lanes empty), so a call is as long as
// a run and a row allow: few calls, and the load stays balanced.
template <size_t D, size_t K, typename Body>
void run_dynamic(pthreadpool_t pool, const char* what, const size_t (&range)[D],
                 const size_t (&tile)[D], uint32_t flags, core::Work work, const Body& body) {
  Shape<D> s;
  if (!make_shape<D, ((1u << K) - 1) << (D - K)>(s, range, tile)) return warn_too_large(what);
  if (s.total == 0) return;
  run_shape<D, Body, dynamic_run<D, K, Body>>(pool, what, s, flags, work, body);
}

}  // namespace poolshim::abi::ptp::grid
