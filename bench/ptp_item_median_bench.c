/* ptp_item_median_bench: per-item cost of single 4096-task pthreadpool calls, as the median of
 * 3000 calls timed one by one (docs/bench.md, "Per item: the fence flag out of the loop").
 * ptp_shapes_bench times calls back to back for a few milliseconds, so one noisy stretch moves a
 * whole repetition; a median of single calls keeps it to one call. A C client of Debian's
 * libpthreadpool, run as-is and under LD_PRELOAD=libpoolshim.so, empty tasks of each shape.
 * Output, one line per shape: <shape>\t<ns per item>
 * usage: ptp_item_median_bench [THREADS (2; 0 = the NULL pool)]
 */
#include <pthreadpool.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

static void t1(void* c, size_t a) { (void)c; (void)a; }
static void t2(void* c, size_t a, size_t b) { (void)c; (void)a; (void)b; }
static void t4(void* c, size_t a, size_t b, size_t d, size_t e) {
  (void)c; (void)a; (void)b; (void)d; (void)e;
}
static void t6(void* c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g) {
  (void)c; (void)a; (void)b; (void)d; (void)e; (void)f; (void)g;
}
static void t8(void* c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g, size_t h,
               size_t i) {
  (void)c; (void)a; (void)b; (void)d; (void)e; (void)f; (void)g; (void)h; (void)i;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

enum { kWarm = 300, kCalls = 3000, kTasks = 4096 };

/* Every call below has kTasks tasks. */
static void call(pthreadpool_t p, int shape) {
  switch (shape) {
    case 0: pthreadpool_parallelize_1d(p, t1, NULL, 4096, 0); break;
    case 1: pthreadpool_parallelize_1d_tile_1d(p, t2, NULL, 8192, 2, 0); break;
    case 2: pthreadpool_parallelize_2d(p, t2, NULL, 64, 64, 0); break;
    case 3: pthreadpool_parallelize_2d_tile_2d(p, t4, NULL, 128, 128, 2, 2, 0); break;
    case 4: pthreadpool_parallelize_4d(p, t4, NULL, 8, 8, 8, 8, 0); break;
    case 5: pthreadpool_parallelize_6d(p, t6, NULL, 4, 4, 4, 4, 4, 4, 0); break;
    default: pthreadpool_parallelize_6d_tile_2d(p, t8, NULL, 4, 4, 4, 4, 8, 8, 2, 2, 0); break;
  }
}

int main(int argc, char** argv) {
  static const char* const kNames[] = {"1d", "1d_tile_1d", "2d", "2d_tile_2d",
                                       "4d", "6d", "6d_tile_2d"};
  static double ns[kCalls];
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  pthreadpool_t pool = threads > 0 ? pthreadpool_create((size_t)threads) : NULL;
  if (threads > 0 && pool == NULL) {
    fprintf(stderr, "ptp_item_median_bench: no pool of %d threads\n", threads);
    return 1;
  }
  for (int shape = 0; shape < 7; ++shape) {
    for (int k = -kWarm; k < kCalls; ++k) {
      const double start = now_ns();
      call(pool, shape);
      if (k >= 0) ns[k] = now_ns() - start;
    }
    qsort(ns, kCalls, sizeof ns[0], by_value);
    printf("%s\t%.3f\n", kNames[shape], ns[kCalls / 2] / kTasks);
  }
  if (pool != NULL) pthreadpool_destroy(pool);
  return 0;
}
