// See first_use.h.
#include "base/first_use.h"

// Weak and undefined: null unless the process defines it (a test host only).
extern "C" void poolshim_testing_hold_first_use(const char* what) __attribute__((weak));

namespace poolshim::base {

void first_use(const char* what) {
  if (poolshim_testing_hold_first_use != nullptr) poolshim_testing_hold_first_use(what);
}

}  // namespace poolshim::base
