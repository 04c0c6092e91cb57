// The ExecuTorch thread-pool surface on the one pool. The exported wrappers
// (executorch_exports.cpp) pass which name was called and the caller's return address, so that
// a call the shim must not serve can go to the caller module's own definition of that name.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "abi/executorch/symbols.h"
#include "core/tls.h"

namespace poolshim::abi {

// executorch::runtime::FunctionRef<R(P...)>: {callback, callable}, trivially copyable, so passed
// by value in two registers; invoked as callback(callable, args...).
struct FunctionRefIndex {
  void (*callback)(intptr_t callable, size_t index);
  intptr_t callable;
};
struct FunctionRefRange {
  void (*callback)(intptr_t callable, int64_t begin, int64_t end);
  intptr_t callable;
};

using StdFunctionIndex = std::function<void(size_t)>;

void* et_get_threadpool(EtSym sym, const void* ret);
void* et_get_pthreadpool(EtSym sym, const void* ret);
void et_run_fnref(EtSym sym, const void* ret, void* self, FunctionRefIndex fn, size_t range);
void et_run_stdfn(EtSym sym, const void* ret, void* self, const StdFunctionIndex& fn, size_t range);
size_t et_get_thread_count(EtSym sym, const void* ret, const void* self);
bool et_reset_threadpool(EtSym sym, const void* ret, void* self, uint32_t threads);
void et_destroy_threadpool(EtSym sym, const void* ret, void* self);
bool et_parallel_for(int64_t begin, int64_t end, int64_t grain, FunctionRefRange fn);

}  // namespace poolshim::abi

// The process-wide NoThreadPoolGuard flag (exported under both namespaces' names) and the
// parallel_for thread number; defined in executorch_exports.cpp.
extern "C" POOLSHIM_FAST_TLS __thread bool poolshim_et_guard_flag;
extern "C" POOLSHIM_FAST_TLS __thread int64_t poolshim_et_thread_num;
