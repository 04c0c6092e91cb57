/* dispatch_floor_bench: what a 2-item empty parallel call costs at the least on this machine, for
 * the moonshot of issue 8 (docs/bench.md, "pthreadpool shapes"). Two modes, one per process:
 *   spin  a spin-only 2-thread dispatch: one worker spins on a generation counter, the caller
 *         bumps it, runs item 0, and spins until the worker has run item 1. No sleeping, no
 *         work distribution, no bookkeeping: a floor no real pool can go under.
 *   omp   libgomp: `#pragma omp parallel for num_threads(2)` over 2 items (gcc -fopenmp).
 * Output, one line per repetition: <mode>\tcall2\t<rep>\t<ns per call>
 * usage: dispatch_floor_bench spin|omp [--reps R (5)] [--ms M (4)]
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spin.h"

static void empty(size_t i) { (void)i; }
static void (*volatile g_task)(size_t) = empty; /* a real indirect call per item */

/* ---- spin floor ---- */
static _Alignas(64) atomic_ulong g_gen;
static _Alignas(64) atomic_ulong g_done;
static atomic_int g_stop;

static void* spin_worker(void* arg) {
  (void)arg;
  unsigned long seen = 0;
  for (;;) {
    unsigned long g;
    while ((g = atomic_load_explicit(&g_gen, memory_order_acquire)) == seen) {
      if (atomic_load_explicit(&g_stop, memory_order_relaxed)) return NULL;
      cpu_relax();
    }
    seen = g;
    g_task(1);
    atomic_store_explicit(&g_done, g, memory_order_release);
  }
}

static void spin_call(void) {
  unsigned long g = atomic_load_explicit(&g_gen, memory_order_relaxed) + 1;
  atomic_store_explicit(&g_gen, g, memory_order_release);
  g_task(0);
  while (atomic_load_explicit(&g_done, memory_order_acquire) != g) cpu_relax();
}

/* ---- libgomp ---- */
static void omp_call(void) {
#pragma omp parallel for num_threads(2) schedule(static)
  for (int i = 0; i < 2; ++i) g_task((size_t)i);
}

int main(int argc, char** argv) {
  if (argc < 2 || (strcmp(argv[1], "spin") && strcmp(argv[1], "omp"))) {
    fprintf(stderr, "usage: %s spin|omp [--reps R] [--ms M]\n", argv[0]);
    return 2;
  }
  int spin = !strcmp(argv[1], "spin");
  int reps = 5;
  double ms = 4;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--ms") && i + 1 < argc) ms = atof(argv[++i]);
    else {
      fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], argv[i]);
      return 2;
    }
  }
  pthread_t worker;
  if (spin && pthread_create(&worker, NULL, spin_worker, NULL) != 0) return 1;
  void (*call)(void) = spin ? spin_call : omp_call;
  for (int rep = 0; rep <= reps; ++rep) { /* rep 0 warms up */
    const double budget = (rep == 0 ? 0.5 : 1.0) * ms * 1e6;
    const double start = now_ns();
    double elapsed;
    size_t calls = 0;
    do {
      for (int k = 0; k < 16; ++k) call();
      calls += 16;
      elapsed = now_ns() - start;
    } while (elapsed < budget);
    if (rep > 0) printf("%s\tcall2\t%d\t%.3f\n", argv[1], rep, elapsed / (double)calls);
  }
  if (spin) {
    atomic_store(&g_stop, 1);
    pthread_join(worker, NULL);
  }
  return 0;
}
