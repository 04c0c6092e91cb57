// The failure path of POOLSHIM_ASSERT (base/assert.h): one line to stderr, then abort.
#include "base/assert.h"

#include <stdlib.h>
#include <unistd.h>

#include "base/text.h"

#if defined(POOLSHIM_ASSERTIONS) && POOLSHIM_ASSERTIONS
namespace poolshim::base {

void assertion_failed(const char* cond, const char* file, int line) {
  char buf[512];
  Text t(buf);
  t.appendf("poolshim: assertion failed: %s (%s:%d)\n", cond, file, line);
  ssize_t ignored = ::write(2, t.c_str(), t.size());
  (void)ignored;
  ::abort();
}

}  // namespace poolshim::base
#endif
