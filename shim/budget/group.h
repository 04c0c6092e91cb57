// This process's group (POOLSHIM_GROUP): joined lazily, on the first parallel call, through the
// ledger in group_ledger.h. When no group is configured, or the ledger cannot be used (one
// warning says why), the process keeps its own local budget.
#pragma once
#include <cstddef>

#include "budget/group_ledger.h"
#include "base/fork_hooks.h"

namespace poolshim::budget::group {

// Joins the group on the first call (thread-safe, once per process; again in a fork child).
// True when the process accounts its busy threads in the group ledger.
bool join_configured();

// The membership; valid only after join_configured() returned true.
const Member& self();

// The configured group name; "" when none is configured or its ledger could not be used.
const char* name();

// True when the process is a member right now (without joining).
bool in_group();

// In the child of fork(): take a new slot (or leave the group when none is free).
POOLSHIM_FORK_HOOK void atfork_child();

}  // namespace poolshim::budget::group
