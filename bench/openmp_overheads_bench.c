/* EPCC-style OpenMP overheads (after the EPCC syncbench): the time one construct adds, in
 * microseconds, for an empty parallel region, a worksharing for (inside a region), a barrier, a
 * single, a critical section and a reduction. Each construct runs `reps` times around a tiny
 * delay; the reference (the delay alone, on one thread) is subtracted. The median of `rounds`
 * rounds is printed as "construct overhead_us", one line each; bench/openmp_bench.sh runs it on
 * libgomp, on LLVM's libomp (preloaded) and under the shim. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;
static void delay(int n) {
  for (int i = 0; i < n; ++i) sink += i;
}

enum { kDelay = 20, kRounds = 7 };

static double now(void) { return omp_get_wtime(); }

static double reference(int reps) {
  double t = now();
  for (int r = 0; r < reps; ++r) delay(kDelay);
  return now() - t;
}

static double run(const char* which, int reps) {
  double t = now();
  if (!strcmp(which, "parallel")) {
    for (int r = 0; r < reps; ++r) {
#pragma omp parallel
      delay(kDelay);
    }
  } else if (!strcmp(which, "for")) {
#pragma omp parallel
    for (int r = 0; r < reps; ++r) {
#pragma omp for
      for (int i = 0; i < omp_get_num_threads(); ++i) delay(kDelay);
    }
  } else if (!strcmp(which, "barrier")) {
#pragma omp parallel
    for (int r = 0; r < reps; ++r) {
      delay(kDelay);
#pragma omp barrier
    }
  } else if (!strcmp(which, "single")) {
#pragma omp parallel
    for (int r = 0; r < reps; ++r) {
#pragma omp single
      delay(kDelay);
    }
  } else if (!strcmp(which, "critical")) {
#pragma omp parallel
    for (int r = 0; r < reps / omp_get_num_threads(); ++r) {
#pragma omp critical
      delay(kDelay);
    }
  } else if (!strcmp(which, "reduction")) {
    int s = 0;
    for (int r = 0; r < reps; ++r) {
#pragma omp parallel reduction(+ : s)
      {
        delay(kDelay);
        s += 1;
      }
    }
    sink += s;
  }
  return now() - t;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 2000;
  const char* names[] = {"parallel", "for", "barrier", "single", "critical", "reduction"};
  printf("threads %d\n", omp_get_max_threads());
  for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
    double v[kRounds];
    for (int i = 0; i < kRounds; ++i) v[i] = (run(names[k], reps) - reference(reps)) / reps * 1e6;
    qsort(v, kRounds, sizeof v[0], cmp);
    printf("%s %.3f\n", names[k], v[kRounds / 2]);
  }
  return 0;
}
