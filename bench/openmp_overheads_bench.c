/* EPCC-style OpenMP overheads (after the EPCC syncbench, taskbench and schedbench): the time one
 * construct adds, in microseconds, for an empty parallel region, a worksharing for (inside a
 * region), a barrier, a single, a critical section and a reduction; for tasks created by every
 * thread (parallel_task), by the master alone (master_task), inside tasks (nested_task: each
 * thread's tasks create one task per thread and wait for them; nested_master_task: the same from
 * the master alone), a binary tree of tasks (branch_task_tree, depth 5); and for loops of
 * dynamic (chunks 1, 4, 32) and guided (1) schedules. Each construct gives every thread `reps`
 * tiny delays to run; the reference (`reps` delays on one thread) is subtracted and the rest
 * divided by `reps`. The median of the rounds is printed as "construct overhead_us", one line
 * each; bench/openmp_bench.sh runs it on libgomp, on LLVM's libomp (preloaded) and under the
 * shim. usage: openmp_overheads_bench [reps [construct]] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;  // keeps the reduction's result alive
// The delay sums into its own (stack) variable, as EPCC's delay() does: a shared one would make
// every thread's delay bounce one cache line between the CPUs, and the bench would measure that
// contention instead of the runtime (docs/openmp.md, "EPCC's delay").
static void delay(int n) {
  volatile int local = 0;
  for (int i = 0; i < n; ++i) local += i;
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

enum { kTreeDepth = 5, kTreeNodes = (2 << kTreeDepth) - 1 };

// A node of the branch task tree: two child tasks, then its own delay.
static void branch(int depth) {
  if (depth > 0) {
#pragma omp task
    branch(depth - 1);
#pragma omp task
    branch(depth - 1);
  }
  delay(kDelay);
}

static double run_tasks(const char* which, int reps) {
  double t = now();
  if (!strcmp(which, "parallel_task")) {
#pragma omp parallel
    for (int r = 0; r < reps; ++r) {
#pragma omp task
      delay(kDelay);
    }
  } else if (!strcmp(which, "master_task")) {
#pragma omp parallel
#pragma omp master
    for (int r = 0; r < reps * omp_get_num_threads(); ++r) {
#pragma omp task
      delay(kDelay);
    }
  } else if (!strcmp(which, "nested_task")) {
#pragma omp parallel
    {
      const int n = omp_get_num_threads();
      for (int r = 0; r < reps / n; ++r) {
#pragma omp task
        {
          for (int i = 0; i < n; ++i) {
#pragma omp task
            delay(kDelay);
          }
#pragma omp taskwait
        }
      }
    }
  } else if (!strcmp(which, "nested_master_task")) {
#pragma omp parallel
#pragma omp master
    {
      const int n = omp_get_num_threads();
      for (int r = 0; r < reps; ++r) {
#pragma omp task
        {
          for (int i = 0; i < n; ++i) {
#pragma omp task
            delay(kDelay);
          }
#pragma omp taskwait
        }
      }
    }
  } else if (!strcmp(which, "branch_task_tree")) {
#pragma omp parallel
    for (int r = 0; r < reps / kTreeNodes; ++r) branch(kTreeDepth);
  }
  return now() - t;
}

static double run_schedule(const char* which, int reps) {
  const int n = omp_get_max_threads();
  double t = now();
  if (!strcmp(which, "dynamic_1")) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < reps * n; ++i) delay(kDelay);
  } else if (!strcmp(which, "dynamic_4")) {
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < reps * n; ++i) delay(kDelay);
  } else if (!strcmp(which, "dynamic_32")) {
#pragma omp parallel for schedule(dynamic, 32)
    for (int i = 0; i < reps * n; ++i) delay(kDelay);
  } else if (!strcmp(which, "guided_1")) {
#pragma omp parallel for schedule(guided, 1)
    for (int i = 0; i < reps * n; ++i) delay(kDelay);
  }
  return now() - t;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double run_any(const char* which, int reps) {
  if (strstr(which, "task")) return run_tasks(which, reps);
  if (strstr(which, "dynamic") || strstr(which, "guided")) return run_schedule(which, reps);
  return run(which, reps);
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 2000;
  const char* only = argc > 2 ? argv[2] : NULL;
  const char* names[] = {"parallel",        "for",         "barrier",         "single",
                         "critical",        "reduction",   "parallel_task",   "master_task",
                         "nested_task",     "nested_master_task", "branch_task_tree",
                         "dynamic_1",       "dynamic_4",   "dynamic_32",      "guided_1"};
  printf("threads %d\n", omp_get_max_threads());
  for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
    if (only != NULL && strcmp(only, names[k]) != 0) continue;
    double v[kRounds];
    for (int i = 0; i < kRounds; ++i)
      v[i] = (run_any(names[k], reps) - reference(reps)) / reps * 1e6;
    qsort(v, kRounds, sizeof v[0], cmp);
    printf("%s %.3f\n", names[k], v[kRounds / 2]);
  }
  return 0;
}
