/* ptp_shapes_bench: a plain C client of Debian's libpthreadpool (linked normally: DT_NEEDED
 * libpthreadpool.so.0), timing every pthreadpool_parallelize_* shape of Debian's header with an
 * empty task. scripts/bench.sh runs it as-is ("raw") and under LD_PRELOAD=libpoolshim.so
 * ("shim"), on pools of the same size (issue 8, point 6; docs/bench.md, "pthreadpool shapes").
 *
 * For each shape, three metrics (the task count of a call is N, spread as evenly as possible over
 * the shape's dimensions in powers of two; a tiled dimension has range 2 x its tile count, tile 2):
 *   call2   ns per call of a 2-task call   (dispatch latency)
 *   call64  ns per call of a 64-task call
 *   item    ns per task of a 4096-task call (throughput: per-item overhead)
 * Each measurement is one repetition: calls back to back for about --ms milliseconds, time
 * divided by the calls. Repetitions of all (shape, metric) pairs are interleaved round-robin, so a
 * drift in machine load spreads over all of them. Output, one line per repetition:
 *   <shape>\t<metric>\t<rep>\t<ns>
 * and, on a pool of 2 threads, before each repetition the hand-off floor of the pool's own two
 * threads (see pool_floor below), ns per round trip:
 *   pool_threads\tfloor\t<rep>\t<ns>
 * usage: ptp_shapes_bench [--threads N (2)] [--reps R (5)] [--ms M (4)] [--filter SUBSTRING]
 *                         [--null]
 * --null: every call on the NULL pool (the serial path: the index walk and task calls alone).
 */
#include <pthreadpool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spin.h"

/* Empty tasks of every arity used below (a call through a pointer cannot be elided). */
static void t1(void* c, size_t a) { (void)c; (void)a; }
static void t2(void* c, size_t a, size_t b) { (void)c; (void)a; (void)b; }
static void t3(void* c, size_t a, size_t b, size_t d) { (void)c; (void)a; (void)b; (void)d; }
static void t4(void* c, size_t a, size_t b, size_t d, size_t e) {
  (void)c; (void)a; (void)b; (void)d; (void)e;
}
static void t5(void* c, size_t a, size_t b, size_t d, size_t e, size_t f) {
  (void)c; (void)a; (void)b; (void)d; (void)e; (void)f;
}
static void t6(void* c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g) {
  (void)c; (void)a; (void)b; (void)d; (void)e; (void)f; (void)g;
}
static void t7(void* c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g, size_t h) {
  (void)c; (void)a; (void)b; (void)d; (void)e; (void)f; (void)g; (void)h;
}
static void t8(void* c, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g, size_t h,
               size_t i) {
  (void)c; (void)a; (void)b; (void)d; (void)e; (void)f; (void)g; (void)h; (void)i;
}
static void u1(void* c, uint32_t u, size_t a) { (void)c; (void)u; (void)a; }
static void u4(void* c, uint32_t u, size_t a, size_t b, size_t d, size_t e) {
  (void)c; (void)u; (void)a; (void)b; (void)d; (void)e;
}
static void u5(void* c, uint32_t u, size_t a, size_t b, size_t d, size_t e, size_t f) {
  (void)c; (void)u; (void)a; (void)b; (void)d; (void)e; (void)f;
}
static void u6(void* c, uint32_t u, size_t a, size_t b, size_t d, size_t e, size_t f, size_t g) {
  (void)c; (void)u; (void)a; (void)b; (void)d; (void)e; (void)f; (void)g;
}

typedef void (*call_fn)(pthreadpool_t, const size_t* r, const size_t* t);

static void c_1d(pthreadpool_t p, const size_t* r, const size_t* t) {
  (void)t; pthreadpool_parallelize_1d(p, t1, NULL, r[0], 0);
}
static void c_1d_with_uarch(pthreadpool_t p, const size_t* r, const size_t* t) {
  (void)t; pthreadpool_parallelize_1d_with_uarch(p, u1, NULL, 0, 0, r[0], 0);
}
static void c_1d_tile_1d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_1d_tile_1d(p, t2, NULL, r[0], t[0], 0);
}
static void c_2d(pthreadpool_t p, const size_t* r, const size_t* t) {
  (void)t; pthreadpool_parallelize_2d(p, t2, NULL, r[0], r[1], 0);
}
static void c_2d_tile_1d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_2d_tile_1d(p, t3, NULL, r[0], r[1], t[1], 0);
}
static void c_2d_tile_2d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_2d_tile_2d(p, t4, NULL, r[0], r[1], t[0], t[1], 0);
}
static void c_2d_tile_2d_with_uarch(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_2d_tile_2d_with_uarch(p, u4, NULL, 0, 0, r[0], r[1], t[0], t[1], 0);
}
static void c_3d(pthreadpool_t p, const size_t* r, const size_t* t) {
  (void)t; pthreadpool_parallelize_3d(p, t3, NULL, r[0], r[1], r[2], 0);
}
static void c_3d_tile_1d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_3d_tile_1d(p, t4, NULL, r[0], r[1], r[2], t[2], 0);
}
static void c_3d_tile_2d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_3d_tile_2d(p, t5, NULL, r[0], r[1], r[2], t[1], t[2], 0);
}
static void c_3d_tile_2d_with_uarch(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_3d_tile_2d_with_uarch(p, u5, NULL, 0, 0, r[0], r[1], r[2], t[1], t[2], 0);
}
static void c_4d(pthreadpool_t p, const size_t* r, const size_t* t) {
  (void)t; pthreadpool_parallelize_4d(p, t4, NULL, r[0], r[1], r[2], r[3], 0);
}
static void c_4d_tile_1d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_4d_tile_1d(p, t5, NULL, r[0], r[1], r[2], r[3], t[3], 0);
}
static void c_4d_tile_2d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_4d_tile_2d(p, t6, NULL, r[0], r[1], r[2], r[3], t[2], t[3], 0);
}
static void c_4d_tile_2d_with_uarch(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_4d_tile_2d_with_uarch(p, u6, NULL, 0, 0, r[0], r[1], r[2], r[3], t[2],
                                                t[3], 0);
}
static void c_5d(pthreadpool_t p, const size_t* r, const size_t* t) {
  (void)t; pthreadpool_parallelize_5d(p, t5, NULL, r[0], r[1], r[2], r[3], r[4], 0);
}
static void c_5d_tile_1d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_5d_tile_1d(p, t6, NULL, r[0], r[1], r[2], r[3], r[4], t[4], 0);
}
static void c_5d_tile_2d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_5d_tile_2d(p, t7, NULL, r[0], r[1], r[2], r[3], r[4], t[3], t[4], 0);
}
static void c_6d(pthreadpool_t p, const size_t* r, const size_t* t) {
  (void)t; pthreadpool_parallelize_6d(p, t6, NULL, r[0], r[1], r[2], r[3], r[4], r[5], 0);
}
static void c_6d_tile_1d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_6d_tile_1d(p, t7, NULL, r[0], r[1], r[2], r[3], r[4], r[5], t[5], 0);
}
static void c_6d_tile_2d(pthreadpool_t p, const size_t* r, const size_t* t) {
  pthreadpool_parallelize_6d_tile_2d(p, t8, NULL, r[0], r[1], r[2], r[3], r[4], r[5], t[4], t[5],
                                     0);
}

struct shape {
  const char* name;
  int dims;
  unsigned tiled; /* bit d: dimension d is tiled */
  call_fn call;
};

static const struct shape kShapes[] = {
    {"1d", 1, 0, c_1d},
    {"1d_with_uarch", 1, 0, c_1d_with_uarch},
    {"1d_tile_1d", 1, 1, c_1d_tile_1d},
    {"2d", 2, 0, c_2d},
    {"2d_tile_1d", 2, 2, c_2d_tile_1d},
    {"2d_tile_2d", 2, 3, c_2d_tile_2d},
    {"2d_tile_2d_with_uarch", 2, 3, c_2d_tile_2d_with_uarch},
    {"3d", 3, 0, c_3d},
    {"3d_tile_1d", 3, 4, c_3d_tile_1d},
    {"3d_tile_2d", 3, 6, c_3d_tile_2d},
    {"3d_tile_2d_with_uarch", 3, 6, c_3d_tile_2d_with_uarch},
    {"4d", 4, 0, c_4d},
    {"4d_tile_1d", 4, 8, c_4d_tile_1d},
    {"4d_tile_2d", 4, 12, c_4d_tile_2d},
    {"4d_tile_2d_with_uarch", 4, 12, c_4d_tile_2d_with_uarch},
    {"5d", 5, 0, c_5d},
    {"5d_tile_1d", 5, 16, c_5d_tile_1d},
    {"5d_tile_2d", 5, 24, c_5d_tile_2d},
    {"6d", 6, 0, c_6d},
    {"6d_tile_1d", 6, 32, c_6d_tile_1d},
    {"6d_tile_2d", 6, 48, c_6d_tile_2d},
};
#define NSHAPES (sizeof kShapes / sizeof kShapes[0])

static const struct metric {
  const char* name;
  unsigned log2_tasks; /* tasks per call = 2^log2_tasks */
  int per_item;        /* report ns per task instead of per call */
} kMetrics[] = {{"call2", 1, 0}, {"call64", 6, 0}, {"item", 12, 1}};
#define NMETRICS (sizeof kMetrics / sizeof kMetrics[0])

/* Ranges and tiles giving exactly 2^k tasks: exponents spread over the dimensions, the first ones
 * getting the remainder; a tiled dimension with n tiles has range 2n and tile 2. */
static void make_grid(const struct shape* s, unsigned k, size_t* r, size_t* t) {
  for (int d = 0; d < s->dims; ++d) {
    unsigned e = k / (unsigned)s->dims + ((unsigned)d < k % (unsigned)s->dims);
    size_t n = (size_t)1 << e;
    int tiled = (s->tiled >> d) & 1u;
    r[d] = tiled ? 2 * n : n;
    t[d] = tiled ? 2 : 1;
  }
}

/* The hand-off floor between this pool's own two threads, in this process: the spin-only
 * protocol of dispatch_floor_bench (one side bumps a generation and runs an item, the other runs
 * an item and reports the generation back), played by the two items of one 2-item call. Each item
 * waits for the other, so the two run on different threads whichever takes which; a pool
 * following pthreadpool's progress contract runs them at once. Timed in a process of its own the
 * floor depends on where the kernel put its two threads (31, 80 or 450 ns on one host, process
 * by process); timed here it is the floor of the very threads the calls use. */
static unsigned long g_gen, g_back, g_partner; /* __atomic builtins only */
static double g_floor_budget, g_floor_ns;
static void empty_item(size_t i) { (void)i; }
static void (*volatile g_item)(size_t) = empty_item; /* a real indirect call per item */

static void floor_item(void* c, size_t side) {
  (void)c;
  const unsigned long kStop = ~0ul;
  if (side == 0) {
    unsigned long g = 0, rounds = 0;
    /* A pool that runs both items on one thread (no worker could start) would never bring the
     * partner: give up after 200 ms instead of spinning forever (no floor is printed then). */
    const double asked = now_ns();
    while (!__atomic_load_n(&g_partner, __ATOMIC_ACQUIRE)) {
      if (now_ns() - asked > 200e6) {
        g_floor_ns = -1;
        __atomic_store_n(&g_gen, kStop, __ATOMIC_RELEASE);
        return;
      }
      cpu_relax();
    }
    const double start = now_ns();
    double elapsed;
    do {
      for (int k = 0; k < 64; ++k) {
        __atomic_store_n(&g_gen, ++g, __ATOMIC_RELEASE);
        g_item(0);
        while (__atomic_load_n(&g_back, __ATOMIC_ACQUIRE) != g) cpu_relax();
      }
      rounds += 64;
      elapsed = now_ns() - start;
    } while (elapsed < g_floor_budget);
    g_floor_ns = elapsed / (double)rounds;
    __atomic_store_n(&g_gen, kStop, __ATOMIC_RELEASE);
  } else {
    unsigned long seen = 0;
    __atomic_store_n(&g_partner, 1, __ATOMIC_RELEASE);
    for (;;) {
      unsigned long g;
      while ((g = __atomic_load_n(&g_gen, __ATOMIC_ACQUIRE)) == seen) cpu_relax();
      if (g == kStop) break;
      seen = g;
      g_item(1);
      __atomic_store_n(&g_back, g, __ATOMIC_RELEASE);
    }
  }
}

static double pool_floor(pthreadpool_t pool, double budget) {
  __atomic_store_n(&g_gen, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_back, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_partner, 0, __ATOMIC_RELAXED);
  g_floor_budget = budget;
  pthreadpool_parallelize_1d(pool, floor_item, NULL, 2, 0);
  return g_floor_ns;
}

int main(int argc, char** argv) {
  size_t threads = 2;
  int reps = 5;
  double ms = 4;
  const char* filter = NULL;
  int null_pool = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = (size_t)atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ms") && i + 1 < argc) ms = atof(argv[++i]);
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc) filter = argv[++i];
    else if (!strcmp(argv[i], "--null")) null_pool = 1;
    else {
      fprintf(stderr, "usage: %s [--threads N] [--reps R] [--ms M] [--filter SUBSTRING] [--null]\n",
              argv[0]);
      return 2;
    }
  }
  pthreadpool_t pool = null_pool ? NULL : pthreadpool_create(threads);
  if (!null_pool && (pool == NULL || pthreadpool_get_threads_count(pool) != threads)) {
    fprintf(stderr, "ptp_shapes_bench: no pool of %zu threads\n", threads);
    return 1;
  }
  for (int rep = 0; rep <= reps; ++rep) { /* rep 0 warms up and is not printed */
    if (pool != NULL && threads == 2) {
      double ns = pool_floor(pool, (rep == 0 ? 0.5 : 1.0) * ms * 1e6);
      if (rep > 0 && ns > 0) printf("pool_threads\tfloor\t%d\t%.3f\n", rep, ns);
    }
    for (size_t si = 0; si < NSHAPES; ++si) {
      const struct shape* s = &kShapes[si];
      if (filter && !strstr(s->name, filter)) continue;
      for (size_t mi = 0; mi < NMETRICS; ++mi) {
        const struct metric* m = &kMetrics[mi];
        size_t r[6], t[6];
        make_grid(s, m->log2_tasks, r, t);
        const double budget = (rep == 0 ? 0.5 : 1.0) * ms * 1e6;
        const double start = now_ns();
        double elapsed;
        size_t calls = 0;
        do {
          for (int k = 0; k < 16; ++k) s->call(pool, r, t);
          calls += 16;
          elapsed = now_ns() - start;
        } while (elapsed < budget);
        double ns = elapsed / (double)calls;
        if (m->per_item) ns /= (double)((size_t)1 << m->log2_tasks);
        if (rep > 0) printf("%s\t%s\t%d\t%.3f\n", s->name, m->name, rep, ns);
      }
    }
    fflush(stdout);
  }
  if (pool != NULL) pthreadpool_destroy(pool);
  return 0;
}
