// The slow paths of a run (run.h) and the process-wide barrier that lets take() go without a
// fence.
#include "core/run.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/fork_hooks.h"
#include "base/no_cancel.h"
#include "core/counters.h"
#include "core/futex.h"
#include "diag/log.h"

namespace poolshim::core {

// Written by the first thread that asks (a benign race: every asker computes the same answer),
// reset in a forked child. Relaxed: the syscall's own effect is what matters, not this flag.
std::atomic<int> g_barrier{kBarrierUnknown};

namespace {

long membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }

// True when /proc/self/stat says the process has one thread (field 20, num_threads). Anything
// unreadable counts as more than one: the registration is then left to a worker, which is safe.
bool single_threaded() {
  const base::NoCancel no_cancel;  // base/no_cancel.h
  int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* p = strrchr(buf, ')');  // the command name may hold spaces and parentheses
  if (p == nullptr) return false;
  for (int field = 2; field < 20; ++field) {  // p is at the end of field 2, the name
    p = strchr(p + 1, ' ');
    if (p == nullptr) return false;
  }
  return p[1] == '1' && p[2] == ' ';
}

void register_now() {
  const bool ok = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
  g_barrier.store(ok ? kBarrierReady : kBarrierUnavailable, std::memory_order_relaxed);
}

}  // namespace

bool decide_heavy_barrier() {
  // QUERY first: registering a command the kernel does not list would fail anyway.
  long cmds = membarrier(MEMBARRIER_CMD_QUERY);
  if (cmds <= 0 || (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) {
    g_barrier.store(kBarrierUnavailable, std::memory_order_relaxed);
    return false;
  }
  if (single_threaded()) {  // cheap now (no grace period): register on the spot
    register_now();
    return g_barrier.load(std::memory_order_relaxed) == kBarrierReady;
  }
  // Leave it to the first worker (run.h). A second decider racing here finds it pending.
  int unknown = kBarrierUnknown;
  if (g_barrier.compare_exchange_strong(unknown, kBarrierPending, std::memory_order_relaxed))
    POOLSHIM_LOG(debug, "heavy barrier: other threads run already; a worker registers it");
  return false;
}

void finish_heavy_barrier() {
  if (g_barrier.load(std::memory_order_relaxed) != kBarrierPending) return;
  int pending = kBarrierPending;  // one worker registers; callers read the other states as "fence"
  if (!g_barrier.compare_exchange_strong(pending, kBarrierRegistering, std::memory_order_relaxed))
    return;
  register_now();
  POOLSHIM_LOG(
      debug, "heavy barrier: %s by a worker",
      g_barrier.load(std::memory_order_relaxed) == kBarrierReady ? "registered" : "not available");
}

void heavy_barrier_atfork_child() { base::reset_if_set(g_barrier, kBarrierUnknown); }

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
      closed_ = true;
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
