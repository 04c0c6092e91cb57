// The oldest C library the shim and the command load with: GLIBC_2.34 (the wheel's manylinux
// tag, scripts/wheel.sh, reads it from the files). Built on Debian 12 (glibc 2.36), two
// references would otherwise raise it, neither of which our code makes:
//
// - arc4random@GLIBC_2.36: the static libstdc++ (-static-libstdc++, shim/ and tools/
//   CMakeLists.txt) links random.o, std::random_device, whenever any std::__throw_* is linked
//   (functexcept.o -> cow-stdexcept.o -> cow-string-inst.o -> random.o), and GCC 12's
//   random_device calls arc4random where the C library it was built on has it. Nothing here
//   constructs a random_device; should anything ever, this hidden definition answers for it with
//   getrandom(2) (GLIBC_2.25), the same kernel source arc4random reads, so the link binds to it
//   instead of the C library's. Hidden (and local in exports.map): no other module sees it.
// - _dl_find_object@GLIBC_2.35: the static libgcc_eh's unwinder; the command therefore links
//   libgcc_s dynamically (tools/CMakeLists.txt), and the library opens it when an exception
//   first needs it (lifecycle/unwinder_on_demand.cpp): neither links libgcc_eh.
//
// `objdump -T FILE | grep GLIBC_2.3[5-9]` on the library and the command stays empty;
// process.python.wheel checks the tag against every bundled file.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random(void) noexcept {
  uint32_t value = 0;
  // getrandom() of 4 bytes from the urandom pool never returns short once the pool is
  // initialised (it blocks until then, as arc4random does); EINTR is retried. Without entropy
  // glibc's arc4random ends the process; so does this (never a predictable value).
  while (getrandom(&value, sizeof(value), 0) != static_cast<ssize_t>(sizeof(value))) {
    if (errno == EINTR) continue;
    static const char kLine[] = "poolshim: arc4random: getrandom() failed: no entropy\n";
    ssize_t ignored = write(2, kLine, sizeof(kLine) - 1);
    (void)ignored;
    abort();
  }
  return value;
}
