// Index arithmetic: every multi-dimensional, tiled and dynamic pthreadpool variant is a flat
// range of items handed to ptp::run() and decoded back here.
//
//  - Static variants: one item per tile of the grid (untiled dimensions have tile 1), in the
//    order of the header's serial snippet (last dimension fastest). Decoding costs D-1 integer
//    divisions per tile, which the benchmark shows to be noise next to a call's overhead.
//  - Dynamic variants (*_dynamic*): the header promises calls whose start is a multiple of the
//    tile and whose count is a multiple of the tile unless it reaches the end of the range, with
//    counts "chosen to minimize the number of calls while keeping the load balanced". We cut the
//    flat tile space into width * kChunksPerThread equal runs (one run when the call is serial)
//    and split each run at row boundaries, as upstream does: within one row, a run of tiles of
//    the last dimension is one call; when the last dimension is a single tile, a run of rows of
//    the second-last dimension is one call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi/pthreadpool_run.h"

namespace poolshim::abi::ptp::grid {

constexpr size_t kChunksPerThread = 4;

template <size_t D>
struct Shape {
  size_t range[D];
  size_t tile[D];   // >= 1
  size_t tiles[D];  // ceil(range / tile)
  size_t total;     // product of tiles; 0 when any range is 0
};

// Builds the shape. A tile of 0 (upstream divides by it) is taken as 1. Returns false when the
// number of tiles does not fit in size_t (nothing can run such a call).
template <size_t D>
inline bool make_shape(Shape<D>& s, const size_t (&range)[D], const size_t (&tile)[D]) {
  s.total = 1;
  for (size_t d = 0; d < D; ++d) {
    s.range[d] = range[d];
    s.tile[d] = tile[d] == 0 ? 1 : tile[d];
    s.tiles[d] = range[d] / s.tile[d] + (range[d] % s.tile[d] != 0);
    if (__builtin_mul_overflow(s.total, s.tiles[d], &s.total)) return false;
  }
  return true;
}

// Tile `item` (row-major over s.tiles) -> per-dimension start and count, for dims [0, n).
template <size_t D>
inline void decode(const Shape<D>& s, size_t n, size_t item, size_t* start, size_t* count) {
  size_t rem = item;
  for (size_t d = n; d-- > 1;) {
    size_t q = rem / s.tiles[d];
    size_t idx = rem - q * s.tiles[d];
    rem = q;
    start[d] = idx * s.tile[d];
    count[d] = s.range[d] - start[d] < s.tile[d] ? s.range[d] - start[d] : s.tile[d];
  }
  if (n > 0) {
    start[0] = rem * s.tile[0];
    count[0] = s.range[0] - start[0] < s.tile[0] ? s.range[0] - start[0] : s.tile[0];
  }
}

void warn_too_large(const char* what);

// body(thread_index, const size_t* start, const size_t* count) once per tile.
template <size_t D, typename Body>
void run_tiles(pthreadpool_t pool, const char* what, const size_t (&range)[D],
               const size_t (&tile)[D], uint32_t flags, const Body& body) {
  Shape<D> s;
  if (!make_shape(s, range, tile)) return warn_too_large(what);
  if (s.total == 0) return;
  struct Ctx {
    const Shape<D>* s;
    const Body* body;
  } ctx{&s, &body};
  auto item_fn = [](void* p, size_t thread_index, size_t item) {
    auto* c = static_cast<Ctx*>(p);
    size_t start[D], count[D];
    decode(*c->s, D, item, start, count);
    (*c->body)(thread_index, start, count);
  };
  run(resolve(pool, what), s.total, item_fn, &ctx, flags);
}

// Dynamic variants: the last K (1 or 2) dimensions are handed out in runs of whole tiles.
// body(thread_index, start, count) per call, counts possibly spanning several tiles.
template <size_t D, size_t K, typename Body>
void run_dynamic(pthreadpool_t pool, const char* what, const size_t (&range)[D],
                 const size_t (&tile)[D], uint32_t flags, const Body& body) {
  static_assert(K == 1 || K == 2, "one or two dynamic dimensions");
  static_assert(D >= K, "dimensions");
  Shape<D> s;
  if (!make_shape(s, range, tile)) return warn_too_large(what);
  if (s.total == 0) return;
  Target t = resolve(pool, what);
  size_t w = width(t);
  size_t chunks = w <= 1 ? 1 : w * kChunksPerThread;
  if (chunks > s.total) chunks = s.total;

  struct Ctx {
    const Shape<D>* s;
    const Body* body;
    size_t base, extra;  // chunk c covers base tiles, plus one for the first `extra` chunks
  } ctx{&s, &body, s.total / chunks, s.total % chunks};

  auto chunk_fn = [](void* p, size_t thread_index, size_t c) {
    auto* x = static_cast<Ctx*>(p);
    const Shape<D>& s = *x->s;
    size_t pos = c * x->base + (c < x->extra ? c : x->extra);
    const size_t end = pos + x->base + (c < x->extra ? 1 : 0);
    const size_t cols = s.tiles[D - 1];                    // tiles of the last dimension
    size_t plane = cols;
    if constexpr (K == 2) plane *= s.tiles[D - 2];
    size_t start[D], count[D];
    while (pos < end) {
      const size_t outer = pos / plane;
      const size_t off = pos - outer * plane;
      const size_t off_end = plane - off < end - pos ? plane : off + (end - pos);
      decode(s, D - K, outer, start, count);
      if constexpr (K == 1) {
        start[D - 1] = off * s.tile[D - 1];
        size_t stop = off_end * s.tile[D - 1];
        count[D - 1] = (stop < s.range[D - 1] ? stop : s.range[D - 1]) - start[D - 1];
        (*x->body)(thread_index, start, count);
      } else if (cols == 1) {
        // One tile per row: a run of rows is one call over the whole last dimension.
        const size_t a = D - 2;
        start[a] = off * s.tile[a];
        size_t stop = off_end * s.tile[a];
        count[a] = (stop < s.range[a] ? stop : s.range[a]) - start[a];
        start[D - 1] = 0;
        count[D - 1] = s.range[D - 1];
        (*x->body)(thread_index, start, count);
      } else {
        const size_t a = D - 2;
        for (size_t o = off; o < off_end;) {
          const size_t row = o / cols;
          const size_t col = o - row * cols;
          const size_t col_end = cols - col < off_end - o ? cols : col + (off_end - o);
          start[a] = row * s.tile[a];
          count[a] = s.range[a] - start[a] < s.tile[a] ? s.range[a] - start[a] : s.tile[a];
          start[D - 1] = col * s.tile[D - 1];
          size_t stop = col_end * s.tile[D - 1];
          count[D - 1] = (stop < s.range[D - 1] ? stop : s.range[D - 1]) - start[D - 1];
          (*x->body)(thread_index, start, count);
          o += col_end - col;
        }
      }
      pos += off_end - off;
    }
  };
  run(t, chunks, chunk_fn, &ctx, flags);
}

}  // namespace poolshim::abi::ptp::grid
