// The exported ExecuTorch names. Each definition below is a hidden C function named
// poolshim_<ns>_<ident>; the table (executorch_symbols.def) then gives it its mangled,
// default-visible name as an alias declared with the row's C type (et_abi below), so the compiler
// checks every alias against its wrapper's signature. The ABI is exactly the table, and no C++
// declaration of ExecuTorch's classes is needed to produce the mangling.
//
// Every wrapper captures its own return address: that is how a call that must be forwarded
// finds the caller's module (see executorch_forward.h).
#include <type_traits>

#include "abi/executorch/surface.h"
#include "core/tls.h"

#define RET __builtin_return_address(0)
#define HIDDEN extern "C" __attribute__((visibility("hidden"), used, noinline))

namespace {
using poolshim::abi::EtSym;
using poolshim::abi::FunctionRefIndex;
using poolshim::abi::FunctionRefRange;
using poolshim::abi::StdFunctionIndex;
}  // namespace

// Defined here, next to their aliases: an alias must name a symbol of its own translation unit.
extern "C" {
POOLSHIM_FAST_TLS __thread bool poolshim_et_guard_flag = false;
POOLSHIM_FAST_TLS __thread int64_t poolshim_et_thread_num = 0;
}

// Defines both namespaces' wrappers of one member/function.
#define BOTH_NS(ident, ret_type, params, call)                                   \
  HIDDEN ret_type poolshim_et_##ident params { return call(EtSym::et_##ident); } \
  HIDDEN ret_type poolshim_torch_##ident params { return call(EtSym::torch_##ident); }

#define CALL_GET_THREADPOOL(s) poolshim::abi::et_get_threadpool(s, RET)
BOTH_NS(get_threadpool, void*, (), CALL_GET_THREADPOOL)

#define CALL_GET_PTHREADPOOL(s) poolshim::abi::et_get_pthreadpool(s, RET)
BOTH_NS(get_pthreadpool, void*, (), CALL_GET_PTHREADPOOL)

#define CALL_RUN_FNREF(s) poolshim::abi::et_run_fnref(s, RET, self, fn, range)
BOTH_NS(run_fnref, void, (void* self, FunctionRefIndex fn, size_t range), CALL_RUN_FNREF)

#define CALL_RUN_STDFN(s) poolshim::abi::et_run_stdfn(s, RET, self, fn, range)
BOTH_NS(run_stdfn, void, (void* self, const StdFunctionIndex& fn, size_t range), CALL_RUN_STDFN)

#define CALL_GET_THREAD_COUNT(s) poolshim::abi::et_get_thread_count(s, RET, self)
BOTH_NS(get_thread_count, size_t, (const void* self), CALL_GET_THREAD_COUNT)

#define CALL_RESET(s) poolshim::abi::et_reset_threadpool(s, RET, self, threads)
BOTH_NS(reset_threadpool, bool, (void* self, uint32_t threads), CALL_RESET)

#define CALL_DESTROY(s) poolshim::abi::et_destroy_threadpool(s, RET, self)
BOTH_NS(destroy_threadpool, void, (void* self), CALL_DESTROY)

// NoThreadPoolGuard: one flag per thread for the whole process, whichever namespace asks.
HIDDEN bool poolshim_et_guard_is_enabled() { return poolshim_et_guard_flag; }
HIDDEN bool poolshim_torch_guard_is_enabled() { return poolshim_et_guard_flag; }
HIDDEN void poolshim_et_guard_set_enabled(bool on) { poolshim_et_guard_flag = on; }
HIDDEN void poolshim_torch_guard_set_enabled(bool on) { poolshim_et_guard_flag = on; }

HIDDEN bool poolshim_et_parallel_for(int64_t begin, int64_t end, int64_t grain,
                                     FunctionRefRange fn) {
  return poolshim::abi::et_parallel_for(begin, end, grain, fn);
}
HIDDEN int64_t poolshim_et_get_thread_num() { return poolshim_et_thread_num; }
HIDDEN void poolshim_et_set_thread_num(int64_t n) { poolshim_et_thread_num = n; }

// The C-level type of each entry of executorch_symbols.def, read off its mangled name (the
// Itanium C++ ABI on x86-64 and AArch64): a member function takes `this` first (const for a
// const member); FunctionRef<Sig> is a trivially copyable {callback, callable} pair passed by
// value (FunctionRefIndex, FunctionRefRange); `std::function<...> const&` is a pointer to the
// caller's object; NoThreadPoolGuard's members are static. Each wrapper above must have exactly
// this type (static_assert below) and each alias is declared with it (GCC checks alias and
// target with -Wattribute-alias, made an error here).
namespace et_abi {
using FunctionRefIndex = poolshim::abi::FunctionRefIndex;
using FunctionRefRange = poolshim::abi::FunctionRefRange;
using StdFunctionIndex = poolshim::abi::StdFunctionIndex;
using get_threadpool = void*();   // get_threadpool()
using get_pthreadpool = void*();  // get_pthreadpool()
// ThreadPool::run(FunctionRef<void (unsigned long)>, unsigned long)
using run_fnref = void(void*, FunctionRefIndex, size_t);
// ThreadPool::run(std::function<void (unsigned long)> const&, unsigned long)
using run_stdfn = void(void*, const StdFunctionIndex&, size_t);
using get_thread_count = size_t(const void*);  // get_thread_count() const
// _unsafe_reset_threadpool(unsigned int)
using reset_threadpool = bool(void*, uint32_t);
using destroy_threadpool = void(void*);  // _unsafe_destroy_threadpool()
using guard_is_enabled = bool();         // static is_enabled()
using guard_set_enabled = void(bool);    // static set_enabled(bool)
using guard_flag = bool;                 // NoThreadPoolGuard_enabled
// parallel_for(long, long, long, FunctionRef<void (long, long)>)
using parallel_for = bool(int64_t, int64_t, int64_t, FunctionRefRange);
using get_thread_num = int64_t();      // get_thread_num()
using set_thread_num = void(int64_t);  // set_thread_num(long)
}  // namespace et_abi

// The aliases: for each row, a declaration of the mangled name with the row's C type, aliasing
// the wrapper (GCC emits `.set mangled, poolshim_<ns>_<ident>`, the same symbol an assembler
// alias gave, and checks the two types). A TLS row aliases the one flag (poolshim_et_guard_flag)
// under both names, so a legacy module's own inlined guard code (which reaches the flag through
// TLS relocations naming it) and the exported functions share one flag per thread.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic error "-Wattribute-alias"
#endif
#define ALIAS_TARGET(ns, ident, target)                          \
  static_assert(std::is_same_v<decltype(target), et_abi::ident>, \
                #target " must have the C type of executorch_symbols.def's " #ns " " #ident);
#define FUNC_ALIAS(ns, ident, mangled)                                                \
  ALIAS_TARGET(ns, ident, poolshim_##ns##_##ident)                                    \
  extern "C" __attribute__((visibility("default"), alias("poolshim_" #ns "_" #ident), \
                            copy(poolshim_##ns##_##ident)))                           \
  et_abi::ident poolshim_export_##ns##_##ident __asm__(mangled);
#define TLS_ALIAS(ns, ident, mangled)                                                \
  ALIAS_TARGET(ns, ident, poolshim_et_guard_flag)                                    \
  extern "C" __attribute__((visibility("default"), alias("poolshim_et_guard_flag"))) \
  POOLSHIM_FAST_TLS __thread et_abi::ident poolshim_export_##ns##_##ident __asm__(mangled);
#define X(kind, ns, ident, mangled, demangled) kind##_ALIAS(ns, ident, mangled)
#include "symbols/executorch.def"
#undef X
