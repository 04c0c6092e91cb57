// The once-per-process bits of log_sites.h: one bit per site in one atomic word.
#include "diag/log_sites.h"

#include <stdint.h>

#include <atomic>

namespace poolshim::diag {
namespace {

static_assert(static_cast<unsigned>(LogSite::count) <= 64, "one bit per site in one word");
std::atomic<uint64_t> g_claimed{0};

}  // namespace

bool claim_once(LogSite site) {
  const uint64_t bit = uint64_t{1} << static_cast<unsigned>(site);
  // The plain load keeps the settled case (already claimed) free of a read-modify-write.
  if ((g_claimed.load(std::memory_order_relaxed) & bit) != 0) return false;
  return (g_claimed.fetch_or(bit, std::memory_order_relaxed) & bit) == 0;
}

}  // namespace poolshim::diag
