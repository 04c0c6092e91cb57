// The affinity history of the counters build (affinity_history.h).
#include "core/affinity_history.h"

#if POOLSHIM_COUNTERS
#include <cstdint>

#include "core/job.h"
#include "core/slots.h"

namespace poolshim::core::history {
namespace {

constexpr size_t kHist = 1024;
struct History {
  RangeFn fn = nullptr;
  size_t range = 0, lanes = 0;
  uint32_t cur[kHist], prev[kHist];
  uint32_t lane_cur[kHist], lane_prev[kHist];  // the thread that owned lane i (0: nobody)
};
History g_history[kSlots];

void count_same(const History& h, const Job& job, size_t n, size_t lanes) {
  uint64_t same = 0, owned = 0, lane_same = 0;
  for (size_t i = 0; i < n; ++i) same += h.cur[i] == h.prev[i] ? 1 : 0;
  POOLSHIM_COUNT(kAffinityItems, n);
  POOLSHIM_COUNT(kAffinitySame, same);
  for (size_t i = 0; i < lanes; ++i) {
    if (h.lane_cur[i] == 0 || h.lane_prev[i] == 0) continue;  // not joined in one of them
    ++owned;
    lane_same += h.lane_cur[i] == h.lane_prev[i] ? 1 : 0;
  }
  POOLSHIM_COUNT(kLaneAffinityLanes, owned);
  POOLSHIM_COUNT(kLaneAffinitySame, lane_same);
}

}  // namespace

void record_items(const Job& job, size_t begin, size_t end) {
  if (job.offset != 0) return;
  uint32_t id = counters::thread_id();
  History& h = g_history[job.slot];
  for (size_t i = begin; i < end && i < kHist; ++i) h.cur[i] = id;
}

void record_lane(const Job& job, size_t lane) {
  if (job.offset == 0 && lane < kHist) g_history[job.slot].lane_cur[lane] = counters::thread_id();
}

void compare(const Job& job, size_t range) {
  if (job.offset != 0) return;
  History& h = g_history[job.slot];
  size_t n = range < kHist ? range : kHist;
  size_t lanes = job.lanes < kHist ? job.lanes : kHist;
  if (h.fn == job.fn && h.range == range && h.lanes == job.lanes) count_same(h, job, n, lanes);
  for (size_t i = 0; i < lanes; ++i) {
    h.lane_prev[i] = h.lane_cur[i];
    h.lane_cur[i] = 0;
  }
  for (size_t i = 0; i < n; ++i) h.prev[i] = h.cur[i];
  h.fn = job.fn;
  h.range = range;
  h.lanes = job.lanes;
}

}  // namespace poolshim::core::history
#endif
