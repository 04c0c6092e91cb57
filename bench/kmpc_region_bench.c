/* kmpc_region_bench: one empty-bodied parallel region, entered the way clang's code enters it
 * (__kmpc_fork_call) or gcc's (GOMP_parallel), timed from C with no compiler's OpenMP lowering
 * in between, so that two runtimes, or one runtime with and without libomp in the process, are
 * compared on the entry point alone (docs/openmp.md, "The clang region and libomp in the
 * process"). Prints the best of 7 rounds, in us per region:
 *   <kmpc|gomp> <us>
 * Built by hand, three ways (the same source):
 *   cc -O2 kmpc_region_bench.c -o alone -L<lib> -lpoolshim -Wl,-rpath,<lib>
 *   cc -O2 kmpc_region_bench.c -o beside -L<lib> -L<llvm> -Wl,--no-as-needed -lpoolshim -lomp \
 *      -Wl,-rpath,<lib>:<llvm>
 *   cc -O2 kmpc_region_bench.c -o libomp -L<llvm> -lomp -Wl,-rpath,<llvm>
 * (<lib>: a Release build's lib/; <llvm>: /usr/lib/llvm-14/lib). The first two need
 * POOLSHIM_KMPC=shim for the kmpc entry to run natively; all three OMP_NUM_THREADS=2.
 * usage: kmpc_region_bench REPS kmpc|gomp
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spin.h"

/* libomp's ident_t: the flags are its second word (2: KMP_IDENT_KMPC). */
typedef struct {
  int reserved_1, flags, reserved_2, reserved_3;
  const char* psource;
} ident_t;
typedef void (*kmpc_micro)(int*, int*, ...);
void __kmpc_fork_call(ident_t*, int, kmpc_micro, ...);
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);

static ident_t loc = {0, 2, 0, 0, ";unknown;unknown;0;0;;"};

/* A few tens of ns of work, as EPCC's delay: the body is not empty, but reads no shared data. */
static void __attribute__((noinline)) delay(void) {
  volatile int a = 0;
  for (int i = 0; i < 20; ++i) a += i;
}
static void micro(int* gtid, int* btid) {
  (void)gtid;
  (void)btid;
  delay();
}
static void gomp_body(void* data) {
  (void)data;
  delay();
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: kmpc_region_bench REPS kmpc|gomp\n");
    return 2;
  }
  const int reps = atoi(argv[1]);
  const int kmpc = strcmp(argv[2], "kmpc") == 0;
  if (reps <= 0 || (!kmpc && strcmp(argv[2], "gomp") != 0)) {
    fprintf(stderr, "kmpc_region_bench: REPS > 0 and kmpc or gomp\n");
    return 2;
  }
  double best = 1e30;
  for (int round = 0; round < 7; ++round) {
    const double t = now_ns();
    if (kmpc)
      for (int r = 0; r < reps; ++r) __kmpc_fork_call(&loc, 0, (kmpc_micro)micro);
    else
      for (int r = 0; r < reps; ++r) GOMP_parallel(gomp_body, NULL, 0, 0);
    const double us = (now_ns() - t) / 1e3 / reps;
    if (us < best) best = us;
  }
  printf("%s %.3f\n", argv[2], best);
  return 0;
}
