/* Task parallelism (docs/openmp.md): a region whose work comes from tasks, at the team size of
 * OMP_NUM_THREADS. "tasks": parallel + single making N tasks of ~US microseconds of arithmetic
 * each (calibrated once, single-threaded, on the fastest of several timings); "taskloop": the
 * same work as a taskloop of N iterations, grainsize 1 (libgomp defers up to 64 tasks per
 * member, more run undeferred: see its taskloop.c), then with num_tasks(2 * threads);
 * "tasks-sleep": N / 10 tasks that each sleep 10 * US microseconds (latency-bound tasks: their
 * overlap shows on a machine whose cores are busy with other work too). Prints
 * "name milliseconds threads-that-ran-work", best of ROUNDS.
 * usage: openmp_tasks_bench [N [US [ROUNDS]]] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double g_sink;
static long g_iters = 1000;

static void work(void) {
  double x = 1.0;
  for (long i = 0; i < g_iters; ++i) x = x * 1.0000001 + 1e-9;
  g_sink = x;
}

static int g_ran[256];
static void mark(void) {
  int t = omp_get_thread_num();
  if (t < 256) __atomic_store_n(&g_ran[t], 1, __ATOMIC_RELAXED);
}
static int used(void) {
  int u = 0;
  for (int i = 0; i < 256; ++i) u += g_ran[i], g_ran[i] = 0;
  return u;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, us = argc > 2 ? atoi(argv[2]) : 10;
  int rounds = argc > 3 ? atoi(argv[3]) : 5;
  double best = 1e9;
  for (int k = 0; k < 20; ++k) {  // calibrate: g_iters iterations take `us` microseconds
    double t0 = omp_get_wtime();
    work();
    double t = omp_get_wtime() - t0;
    if (t < best) best = t;
  }
  g_iters = (long)(g_iters * (us * 1e-6) / best);
  if (g_iters < 1) g_iters = 1;
  const char* names[] = {"tasks", "taskloop-grainsize1", "taskloop-2-per-thread", "tasks-sleep"};
  for (int v = 0; v < 4; ++v) {
    double t_best = 1e9;
    int ran = 0;
    for (int r = 0; r < rounds; ++r) {
      double t0 = omp_get_wtime();
      if (v == 0) {
#pragma omp parallel
#pragma omp single
        for (int i = 0; i < n; ++i) {
#pragma omp task
          {
            work();
            mark();
          }
        }
      } else if (v == 1) {
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(1)
        for (int i = 0; i < n; ++i) {
          work();
          mark();
        }
      } else if (v == 3) {
#pragma omp parallel
#pragma omp single
        for (int i = 0; i < n / 10; ++i) {
#pragma omp task
          {
            struct timespec ts = {0, 10L * us * 1000L};
            nanosleep(&ts, NULL);
            mark();
          }
        }
      } else {
#pragma omp parallel
#pragma omp single
        {
          int k = 2 * omp_get_num_threads();
#pragma omp taskloop num_tasks(k)
          for (int i = 0; i < n; ++i) {
            work();
            mark();
          }
        }
      }
      double t = omp_get_wtime() - t0;
      if (t < t_best) t_best = t;
      int u = used();
      if (u > ran) ran = u;
    }
    printf("%s %.2f %d\n", names[v], t_best * 1e3, ran);
  }
  return 0;
}
