// POOLSHIM_ASSERT(cond): an invariant of the shim, checked where it is cheap to be wrong.
//
// Live when POOLSHIM_ASSERTIONS is 1: Debug and sanitizer builds (CMakeLists.txt turns it on for
// CMAKE_BUILD_TYPE=Debug and for any POOLSHIM_SANITIZE), so the sanitizer CI job checks every
// invariant the code states. Compiled out otherwise: the condition is not evaluated (it may name
// state that only a checking build keeps), and a Release library shipped into a host process
// never stops it on the shim's account.
//
// A failed assertion writes one line, "poolshim: assertion failed: COND (FILE:LINE)", with one
// write(2) to stderr (no allocation, no stdio: it may fire in a fork child or a signal handler),
// then aborts. The condition must have no side effect the code relies on.
#pragma once

#if defined(POOLSHIM_ASSERTIONS) && POOLSHIM_ASSERTIONS
namespace poolshim::base {
// Writes the line and aborts; never returns. Defined in assert.cpp.
[[noreturn]] void assertion_failed(const char* cond, const char* file, int line);
}  // namespace poolshim::base
#define POOLSHIM_ASSERT(cond)              \
  (__builtin_expect(!!(cond), 1) ? (void)0 \
                                 : ::poolshim::base::assertion_failed(#cond, __FILE__, __LINE__))
#else
// sizeof keeps the condition compiled (names checked, no unused-variable warnings) but unevaluated.
#define POOLSHIM_ASSERT(cond) ((void)sizeof(!(cond)))
#endif
