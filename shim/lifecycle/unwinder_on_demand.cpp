// The unwinder, opened when an exception first needs it instead of when the shim is loaded.
//
// Why: libstdc++ is linked into the shim statically, and its exception code (the throw, the
// personality routine that runs the shim's cleanups when an exception crosses its frames) calls
// the unwinder's _Unwind_* functions. Left to the linker, they make libgcc_s.so.1 a DT_NEEDED of
// the shim, mapped and relocated in every process the shim is preloaded into: about 90 KiB of
// resident memory in a C host (sh, python3) that never throws (docs/bench.md, "Idle cost:
// the unwinder on demand"). A static copy of the unwinder (libgcc_eh) is not an option: it needs
// _dl_find_object@GLIBC_2.35 (above the floor of shim/base/glibc_floor.cpp), and two unwinders
// would meet in one process.
//
// So the shim defines the _Unwind_* functions it calls itself, each a forwarder to the one
// libgcc_s.so.1 of the process, opened on the first call (glibc opens it for thread
// cancellation the same way). One unwinder, as before:
//  - an exception thrown by the host and crossing the shim's frames was raised by libgcc_s, so
//    it is loaded already, and opening it again returns that copy (one soname, one copy);
//  - an exception thrown by the shim opens it then.
// The forwarders are not exported (exports.map), so nobody else binds to them. If libgcc_s
// cannot be opened, a throw reports _URC_FATAL_PHASE1_ERROR (libstdc++ then calls
// std::terminate, as with no handler) and anything else aborts: without libgcc_s no exception
// can be in flight, so the context those functions take cannot exist.
#include <pthread.h>
#include <unwind.h>

#include <cstdlib>

#include "base/private_library.h"

namespace {

// The functions the shim's libstdc++ calls (nm -D --undefined-only libpoolshim.so lists no
// other _Unwind_ name; a unit test checks that none is left undefined).
enum Fn {
  kDeleteException,
  kGetDataRelBase,
  kGetIPInfo,
  kGetLanguageSpecificData,
  kGetRegionStart,
  kGetTextRelBase,
  kRaiseException,
  kResume,
  kResumeOrRethrow,
  kSetGR,
  kSetIP,
  kFnCount
};
constexpr const char* kNames[kFnCount] = {"_Unwind_DeleteException",
                                          "_Unwind_GetDataRelBase",
                                          "_Unwind_GetIPInfo",
                                          "_Unwind_GetLanguageSpecificData",
                                          "_Unwind_GetRegionStart",
                                          "_Unwind_GetTextRelBase",
                                          "_Unwind_RaiseException",
                                          "_Unwind_Resume",
                                          "_Unwind_Resume_or_Rethrow",
                                          "_Unwind_SetGR",
                                          "_Unwind_SetIP"};

void* g_fn[kFnCount] = {};  // written once, under g_once, before any reader returns from it
pthread_once_t g_once = PTHREAD_ONCE_INIT;

void open_unwinder() { poolshim::base::open_private("libgcc_s.so.1", kNames, kFnCount, g_fn); }

// The real function, or nullptr when libgcc_s could not be opened.
template <typename F>
F real(Fn fn) {
  pthread_once(&g_once, open_unwinder);
  return reinterpret_cast<F>(g_fn[fn]);
}

// For the functions that only run while an exception is in flight (see the top of the file).
template <typename F>
F required(Fn fn) {
  F f = real<F>(fn);
  if (f == nullptr) std::abort();
  return f;
}

}  // namespace

extern "C" {

void _Unwind_DeleteException(_Unwind_Exception* e) {
  required<void (*)(_Unwind_Exception*)>(kDeleteException)(e);
}
_Unwind_Ptr _Unwind_GetDataRelBase(_Unwind_Context* c) {
  return required<_Unwind_Ptr (*)(_Unwind_Context*)>(kGetDataRelBase)(c);
}
_Unwind_Ptr _Unwind_GetIPInfo(_Unwind_Context* c, int* before) {
  return required<_Unwind_Ptr (*)(_Unwind_Context*, int*)>(kGetIPInfo)(c, before);
}
void* _Unwind_GetLanguageSpecificData(_Unwind_Context* c) {
  return required<void* (*)(_Unwind_Context*)>(kGetLanguageSpecificData)(c);
}
_Unwind_Ptr _Unwind_GetRegionStart(_Unwind_Context* c) {
  return required<_Unwind_Ptr (*)(_Unwind_Context*)>(kGetRegionStart)(c);
}
_Unwind_Ptr _Unwind_GetTextRelBase(_Unwind_Context* c) {
  return required<_Unwind_Ptr (*)(_Unwind_Context*)>(kGetTextRelBase)(c);
}
// An extra frame between the thrower and the unwinder is harmless: it has call frame
// information and no handler, so both phases pass through it.
_Unwind_Reason_Code _Unwind_RaiseException(_Unwind_Exception* e) {
  auto f = real<_Unwind_Reason_Code (*)(_Unwind_Exception*)>(kRaiseException);
  return f != nullptr ? f(e) : _URC_FATAL_PHASE1_ERROR;
}
void _Unwind_Resume(_Unwind_Exception* e) {
  required<void (*)(_Unwind_Exception*)>(kResume)(e);
  std::abort();  // _Unwind_Resume does not return
}
_Unwind_Reason_Code _Unwind_Resume_or_Rethrow(_Unwind_Exception* e) {
  auto f = real<_Unwind_Reason_Code (*)(_Unwind_Exception*)>(kResumeOrRethrow);
  return f != nullptr ? f(e) : _URC_FATAL_PHASE1_ERROR;
}
void _Unwind_SetGR(_Unwind_Context* c, int index, _Unwind_Word value) {
  required<void (*)(_Unwind_Context*, int, _Unwind_Word)>(kSetGR)(c, index, value);
}
void _Unwind_SetIP(_Unwind_Context* c, _Unwind_Ptr ip) {
  required<void (*)(_Unwind_Context*, _Unwind_Ptr)>(kSetIP)(c, ip);
}

}  // extern "C"
