// The count of lanes given back (lanes.h).
#include "core/lanes.h"

#include "base/fork_hooks.h"

namespace poolshim::core {

OnLine<long> g_lanes_given_back{0};

void lanes_atfork_child() { base::reset_if_set(g_lanes_given_back, 0); }

}  // namespace poolshim::core
