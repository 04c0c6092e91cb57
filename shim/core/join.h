// A worker joining a published call (the worker's side of the slot protocol, slots.h).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/pool_internal.h"

namespace poolshim::core {
#pragma GCC visibility push(hidden)

// A worker joins slot s's call if it has a free lane and the budget room, and runs its share.
// ticket: the call's ticket as seen by a worker that waited out its patience (kNoTicket: joined
// at once). Returns helped (or helped_yield), over_budget, or nothing (no call there, or nothing
// left to join).
constexpr uint64_t kNoTicket = ~uint64_t{0};
Help join(size_t s, uint64_t ticket);

#pragma GCC visibility pop
}  // namespace poolshim::core
