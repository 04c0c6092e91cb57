// fork_cost_host: a C program that forks and never asks for a pool, for measuring what the shim's
// fork handlers cost a host (scripts/bench.sh runs it with and without LD_PRELOAD). Each child
// _exits at once and the parent waits for it. It prints the children's minor page faults per
// child (each page a child touches that the fork left unmapped, or shared and then written), the
// parent's per fork (each page it writes that a child still shared), and the wall time per fork:
//   faults_per_child=<f> parent_faults_per_fork=<p> us_per_fork=<t>
// usage: fork_cost_host [forks]   (default 400)
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 400;
  if (n <= 0 || n > 1000000) {
    fprintf(stderr, "fork_cost_host: forks must be 1..1000000, not '%s'\n", argv[1]);
    return 2;
  }
  struct rusage self0;
  getrusage(RUSAGE_SELF, &self0);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < n; ++i) {
    pid_t p = fork();
    if (p < 0) {
      perror("fork_cost_host: fork");
      return 1;
    }
    if (p == 0) _exit(0);
    if (waitpid(p, NULL, 0) != p) {
      perror("fork_cost_host: waitpid");
      return 1;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  struct rusage children, self;
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_SELF, &self);
  double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
  printf("faults_per_child=%.1f parent_faults_per_fork=%.1f us_per_fork=%.1f\n",
         (double)children.ru_minflt / (double)n,
         (double)(self.ru_minflt - self0.ru_minflt) / (double)n, ns / (double)n / 1e3);
  return 0;
}
