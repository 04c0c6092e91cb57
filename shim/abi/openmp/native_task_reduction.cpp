// Task reductions of the native runtime (task_reduction, reduction(task, ...), in_reduction):
// the worksharing interface of native_state.h. Not implemented yet: the constructs that pass a
// `reductions` array forward to libgomp (docs/openmp.md, "Not native yet").
#include "abi/openmp/native_state.h"

namespace poolshim::abi::openmp::native {

void ws_reductions_begin() {}
void ws_reductions_first(WorkShare*, uintptr_t*) {}
void ws_reductions_join(WorkShare*, uintptr_t*) {}

}  // namespace poolshim::abi::openmp::native
