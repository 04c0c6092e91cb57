// The slow paths of a run (run.h) and the process-wide barrier that lets take() go without a
// fence.
#include "core/run.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/counters.h"
#include "core/futex.h"

namespace poolshim::core {

// Written by the first thread that asks (a benign race: every asker computes the same answer),
// reset in a forked child. Relaxed: the syscall's own effect is what matters, not this flag.
std::atomic<int> g_barrier{kBarrierUnknown};

namespace {

long membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }

}  // namespace

bool decide_heavy_barrier() {
  // QUERY first: registering a command the kernel does not list would fail anyway.
  long cmds = membarrier(MEMBARRIER_CMD_QUERY);
  bool ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
            membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
  g_barrier.store(ok ? kBarrierReady : kBarrierUnavailable, std::memory_order_relaxed);
  return ok;
}

void heavy_barrier_atfork_child() { g_barrier.store(kBarrierUnknown, std::memory_order_relaxed); }

size_t Run::settle(size_t first) {
  for (;;) {
    size_t e = end_.load(std::memory_order_acquire);
    if (e > first) return e;  // a thief left this item (and maybe more) to the owner
    if (busy()) {             // a thief is deciding: it runs no user code, so this is short
      cpu_relax();
      continue;
    }
    // Close: from here on no thief can take from this run (they skip an end of 0).
    POOLSHIM_COUNT_LANE();
    if (end_.compare_exchange_weak(e, 0, std::memory_order_acq_rel, std::memory_order_acquire)) {
      closed_end_ = e;
      return e;
    }
  }
}

bool Run::steal(bool fence, size_t* begin, size_t* end, bool half) {
  POOLSHIM_COUNT_LANE();
  if (thief_.exchange(1, std::memory_order_acq_rel) != 0) return false;  // another thief
  bool got = false;
  size_t e = end_.load(std::memory_order_acquire);
  size_t proposal = next_.load(std::memory_order_relaxed);
  if (half && proposal < e) proposal += (e - proposal) / 2;
  if (e != 0 && proposal < e && (POOLSHIM_COUNT_LANE(), true) &&
      end_.compare_exchange_strong(e, 0, std::memory_order_seq_cst, std::memory_order_relaxed)) {
    // Pending. After the barrier every take() load sees 0 (the owner waits in settle) or came
    // before it, in which case next_ below includes that item.
    bool ordered = true;
    if (fence)
      std::atomic_thread_fence(std::memory_order_seq_cst);
    else
      ordered = membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0;
    if (ordered) {
      size_t n = next_.load(std::memory_order_relaxed);
      size_t s = n > proposal ? n : proposal;
      if (s > e) s = e;
      end_.store(s, std::memory_order_release);
      if (s < e) {
        *begin = s;
        *end = e;
        got = true;
      }
    } else {
      end_.store(e, std::memory_order_release);  // no barrier, no steal: the run is as it was
    }
  }
  thief_.store(0, std::memory_order_release);
  return got;
}

}  // namespace poolshim::core
