// The count of lanes given back (lanes.h).
#include "core/lanes.h"

namespace poolshim::core {

OnLine<long> g_lanes_given_back{0};

void lanes_atfork_child() { g_lanes_given_back.store(0, std::memory_order_relaxed); }

}  // namespace poolshim::core
