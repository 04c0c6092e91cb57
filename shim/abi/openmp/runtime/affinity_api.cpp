// The omp_* affinity queries of the native runtime (C spellings): the calling thread's bind-var,
// place and place partition, as places.h placed it. Like libgomp, a thread that asks before it
// has a place is placed (and bound) on place 0; without a place list, -1 and 0. The place list
// itself (omp_get_num_places and kin) forwards to libgomp, whose list this is.
#include <stdint.h>

#include "abi/openmp/runtime/entry_points.h"
#include "abi/openmp/runtime/places.h"
#include "abi/openmp/runtime/state.h"

using namespace poolshim::abi::openmp::runtime;

namespace {

// The calling thread's place state, placed first when it has none; nullptr without places.
const PlaceState* placed() {
  if (num_places() == 0) return nullptr;
  PlaceState& p = me().place;
  ensure_placed(&p);
  return &p;
}

}  // namespace

extern "C" {

int psn_omp_get_proc_bind() { return icv().bind; }

int psn_omp_get_place_num() {
  const PlaceState* p = placed();
  return p ? p->place : -1;
}

int psn_omp_get_partition_num_places() {
  const PlaceState* p = placed();
  return p ? static_cast<int>(p->len) : 0;
}

void psn_omp_get_partition_place_nums(int* place_nums) {
  if (const PlaceState* p = placed())
    for (unsigned i = 0; i < p->len; ++i) place_nums[i] = static_cast<int>(p->off + i);
}

// The Fortran spelling with 64-bit numbers (the others are in fortran.cpp).
void psn_omp_get_partition_place_nums_8_(int64_t* place_nums) {
  if (const PlaceState* p = placed())
    for (unsigned i = 0; i < p->len; ++i) place_nums[i] = static_cast<int64_t>(p->off) + i;
}

}  // extern "C"
