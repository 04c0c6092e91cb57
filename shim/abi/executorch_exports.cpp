// The exported ExecuTorch names. Each definition below is a hidden C function named
// poolshim_<ns>_<ident>; the table (executorch_symbols.def) then gives it its mangled,
// default-visible name as an assembler alias. So the ABI is exactly the table, and no C++
// declaration of ExecuTorch's classes is needed to produce the mangling.
//
// Every wrapper captures its own return address: that is how a call that must be forwarded
// finds the caller's module (see executorch_forward.h).
#include "abi/executorch.h"
#include "core/tls.h"

#define RET __builtin_return_address(0)
#define HIDDEN extern "C" __attribute__((visibility("hidden"), used, noinline))

namespace {
using poolshim::abi::EtSym;
using poolshim::abi::FunctionRefIndex;
using poolshim::abi::FunctionRefRange;
using poolshim::abi::StdFunctionIndex;
}  // namespace

// Defined here, next to their aliases: an assembler alias (.set) must name a symbol of its own
// translation unit.
extern "C" {
POOLSHIM_FAST_TLS __thread bool poolshim_et_guard_flag = false;
POOLSHIM_FAST_TLS __thread int64_t poolshim_et_thread_num = 0;
}

// Defines both namespaces' wrappers of one member/function.
#define BOTH_NS(ident, ret_type, params, call)                                             \
  HIDDEN ret_type poolshim_et_##ident params { return call(EtSym::et_##ident); }           \
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

HIDDEN bool poolshim_et_parallel_for(int64_t begin, int64_t end, int64_t grain, FunctionRefRange fn) {
  return poolshim::abi::et_parallel_for(begin, end, grain, fn);
}
HIDDEN int64_t poolshim_et_get_thread_num() { return poolshim_et_thread_num; }
HIDDEN void poolshim_et_set_thread_num(int64_t n) { poolshim_et_thread_num = n; }

// The aliases. A TLS row aliases the one flag (poolshim_et_guard_flag) under both names, so a
// legacy module's own inlined guard code (which reaches the flag through TLS relocations naming
// it) and the exported functions share one flag per thread.
#define FUNC_ALIAS(ns, ident, mangled)                                                     \
  ".globl " mangled "\n.type " mangled ", @function\n.set " mangled ", poolshim_" #ns "_" #ident "\n"
#define TLS_ALIAS(ns, ident, mangled)                                                      \
  ".globl " mangled "\n.type " mangled ", @tls_object\n.size " mangled ", 1\n"             \
  ".set " mangled ", poolshim_et_guard_flag\n"
#define X(kind, ns, ident, mangled, demangled) kind##_ALIAS(ns, ident, mangled)
asm(
#include "abi/executorch_symbols.def"
);
#undef X
