/* Regions from several initial threads at once (docs/openmp.md, "Initial threads at once and
 * crowded waits"): CALLERS pthreads each open REGIONS regions of THREADS threads, each member
 * checking the threadprivate value its thread number left in the caller's previous region. Prints
 * "callers-CALLERSxTHREADS milliseconds lost", lost counting the member-regions that found
 * another value (the persistence libgomp's pool per initial thread gives, for seats below 32).
 * usage: openmp_callers_bench CALLERS REGIONS THREADS */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int t_value;
#pragma omp threadprivate(t_value)
static int g_lost;
static int g_regions = 2000;
static int g_threads = 2;

static void* caller(void* arg) {
  const int base = (int)(long)arg * 1000000;
  for (int r = 1; r <= g_regions; ++r) {
#pragma omp parallel num_threads(g_threads)
    {
      const int m = omp_get_thread_num();
      if (r > 1 && t_value != base + (r - 1) * 64 + m) __atomic_add_fetch(&g_lost, 1, 0);
      t_value = base + r * 64 + m;
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  const int callers = argc > 1 ? atoi(argv[1]) : 2;
  if (argc > 2) g_regions = atoi(argv[2]);
  if (argc > 3) g_threads = atoi(argv[3]);
  if (callers < 1 || callers > 16 || g_regions < 1 || g_threads < 1 || g_threads > 64) {
    fprintf(stderr, "usage: openmp_callers_bench CALLERS(1-16) REGIONS THREADS(1-64)\n");
    return 2;
  }
  pthread_t t[16];
  const double t0 = omp_get_wtime();
  for (long i = 0; i < callers; ++i) pthread_create(&t[i], NULL, caller, (void*)(i + 1));
  for (int i = 0; i < callers; ++i) pthread_join(t[i], NULL);
  printf("callers-%dx%d %.1f %d\n", callers, g_threads, (omp_get_wtime() - t0) * 1e3, g_lost);
  return 0;
}
