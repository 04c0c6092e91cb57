// omp_pause_resource and omp_pause_resource_all of the native runtime, as libgomp's
// (its target.c and team.c): on the host device (omp_get_initial_device(), which is the number
// of devices) and outside any region, the threads that served teams are destroyed
// (core::gang::pause()), so threadprivate data starts afresh on them; -1 inside a region or for
// a device number that does not exist; 0 for a real device (libgomp does nothing for them).
#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/libgomp.h"
#include "abi/openmp/runtime/state.h"
#include "core/gang.h"

namespace poolshim::abi::openmp::runtime {
namespace {

int num_devices() {
  auto f = reinterpret_cast<int (*)()>(real_function("omp_get_num_devices", "OMP_4.0"));
  return f ? f() : 0;
}

// How long a pause waits for the threads that served teams to end (libgomp joins its threads).
constexpr long kPauseWaitNs = 100L * 1000 * 1000;

int pause_host() {
  if (me().team != nullptr) return -1;  // libgomp: not inside a region (ts.level != 0)
  return core::gang::pause(kPauseWaitNs);
}

}  // namespace
}  // namespace poolshim::abi::openmp::runtime

using namespace poolshim::abi::openmp::runtime;

extern "C" {

int psn_omp_pause_resource(int kind, int device_num) {
  (void)kind;
  int devices = num_devices();
  if (device_num == devices) return pause_host();
  if (device_num < 0 || device_num >= devices) return -1;
  return 0;
}

int psn_omp_pause_resource_all(int kind) {
  (void)kind;
  return pause_host() != 0 ? -1 : 0;
}

}  // extern "C"
