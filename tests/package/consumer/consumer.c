/* Asks the installed poolshim for threads and runs a loop on its pool; prints what it got.
 * Used by tests/process/package_driver.py (CMake and pkg-config builds of the same file). */
#include <poolshim/poolshim.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_size_t sum;

static void body(void* ctx, size_t thread_index, size_t i) {
  (void)ctx;
  (void)thread_index;
  atomic_fetch_add(&sum, i);
}

int main(void) {
  size_t granted = poolshim_request_threads("consumer", 2);
  poolshim_parallelize_1d(body, NULL, 1000, granted);
  struct poolshim_info info = {0};
  info.struct_size = sizeof info;
  int rc = poolshim_get_info(&info);
  printf("granted=%zu sum=%zu header=%s library=%u.%u info_rc=%d budget=%zu\n", granted,
         (size_t)atomic_load(&sum), POOLSHIM_VERSION_STRING, info.version >> 16, info.version & 0xffffu,
         rc, info.budget);
  return atomic_load(&sum) == 999u * 1000u / 2u ? 0 : 1;
}
