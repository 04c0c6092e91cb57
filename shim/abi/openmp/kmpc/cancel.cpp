// Native __kmpc cancellation (kmpc.h): `cancel`, `cancellation point` and the cancellable barrier
// clang emits after a `cancel parallel`, onto the runtime's GOMP_cancel, GOMP_cancellation_point
// and GOMP_barrier_cancel (runtime/cancel.cpp: cancel-var, a team's kBarCancelled, its
// ws_cancelled, a taskgroup's flag). A cancelled loop or sections construct is left by a branch
// past its end: a static one (clang's sections are static loops too) owns nothing to give back,
// a dynamic one (dispatch) leaves its work share here, as GOMP_loop_end_cancel would.
#include <cstdint>

#include "abi/openmp/kmpc/kmpc.h"
#include "abi/openmp/kmpc/kmpc_thread.h"
#include "abi/openmp/runtime/entry_points.h"

namespace poolshim::abi::openmp::kmpc {
namespace {

// libomp's cncl_kind (1 parallel, 2 loop, 3 sections, 4 taskgroup) as GOMP's `which` bits.
constexpr int kGompParallel = 1, kGompLoop = 2, kGompSections = 4, kGompTaskgroup = 8;
int gomp_which(int32_t kind) {
  switch (kind) {
    case 1: return kGompParallel;
    case 2: return kGompLoop;
    case 3: return kGompSections;
    case 4: return kGompTaskgroup;
    default: return 0;
  }
}

// The calling member leaves its loop: a dispatch loop it is in ends its part of the work share.
int32_t leaving(int which, bool cancelled) {
  if (!cancelled) return 0;
  DispatchState& d = kmpc_thread().dispatch;
  if (which == kGompLoop && d.active) {
    psn_GOMP_loop_end_nowait();
    d.active = false;
  }
  return 1;
}

}  // namespace
}  // namespace poolshim::abi::openmp::kmpc

using namespace poolshim::abi::openmp::kmpc;

extern "C" {

int32_t psk_cancel(ident_t*, int32_t, int32_t kind) {
  const int which = gomp_which(kind);
  return which != 0 ? leaving(which, psn_GOMP_cancel(which, true)) : 0;
}

int32_t psk_cancellationpoint(ident_t*, int32_t, int32_t kind) {
  const int which = gomp_which(kind);
  return which != 0 ? leaving(which, psn_GOMP_cancellation_point(which)) : 0;
}

int32_t psk_cancel_barrier(ident_t*, int32_t) { return psn_GOMP_barrier_cancel() ? 1 : 0; }

}  // extern "C"
