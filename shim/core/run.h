// A run: consecutive items [begin, end) that one participant of a call has claimed and runs in
// order. Until an item is started it can still be taken by another participant, so an item that
// blocks (waiting for other items of its own call) never holds the rest of its run hostage:
// pthreadpool's progress contract (docs/scheduler.md, "Progress").
//
// The owner starts each item with take(i): one plain store (`next_`, "items below this are
// started") and one plain load (`end_`). A thief that finds a run making no progress steals its
// unstarted tail with steal(): it takes the run's `thief_` flag, swaps `end_` to 0 (pending),
// issues a process-wide memory barrier, reads `next_`, and publishes the new end.
//
// Why take() needs no fence: the barrier is asymmetric. The thief's membarrier() (the
// "heavy" side: MEMBARRIER_CMD_PRIVATE_EXPEDITED, an IPI to every CPU running one of our threads)
// orders each owner's store-then-load as if it had a full fence, so after it the thief's read of
// `next_` sees every item whose take() load happened before the barrier, and every take() load
// after it sees the pending end. The owner then waits in settle() for the thief's verdict (a few
// instructions and one system call: no user code runs while anyone waits). Where membarrier is
// not available (old kernel, seccomp, valgrind), take() issues a full fence itself (fence_):
// what pthreadpool pays per item anyway.
//
// Invariant: the thief publishes s = min(max(proposal, next_ after the barrier), old end) and
// runs [s, old end); the owner runs exactly the items below s that it took. Thieves never steal
// from a run whose end_ is 0 (closed or pending), and a run's ends are distinct item indices for
// the life of a call (runs are disjoint), so a stale compare-and-swap cannot hit a newer run.
#pragma once
#include <atomic>
#include <cstddef>

#include "base/assert.h"
#include "base/fork_hooks.h"

namespace poolshim::core {

// Registers the process for the expedited barrier, once (decide_heavy_barrier(); every call asks
// after that, inline). Returns true when owners need no fence of their own: open their runs with
// fence false.
//
// Why the registration is placed with care: registering a process that runs more than one thread
// makes the kernel wait for an RCU grace period (synchronize_rcu() in
// membarrier_register_private_expedited), milliseconds where a single-threaded process waits
// microseconds (docs/scheduler.md, "Where the first steps run"). So workers::spawn() decides before
// it creates the first worker, while the process is often still single-threaded; when it is not,
// the decision is left pending and the first worker registers before it serves any call
// (finish_heavy_barrier()), so no caller sleeps through the grace period. Until then calls open
// their runs fenced (what a missing membarrier costs: a fence per item), which is correct on its
// own: the fence is chosen per call.
enum : int {
  kBarrierUnknown = 0,
  kBarrierReady = 1,
  kBarrierUnavailable = 2,
  kBarrierPending = 3,      // left to the first worker
  kBarrierRegistering = 4,  // that worker is registering
};
__attribute__((visibility("hidden"))) extern std::atomic<int> g_barrier;
bool decide_heavy_barrier();
inline bool heavy_barrier_ready() {
  const int state = g_barrier.load(std::memory_order_relaxed);
  if (__builtin_expect(state != kBarrierUnknown, 1)) return state == kBarrierReady;
  return decide_heavy_barrier();
}
// Registers now if the decision was left pending (a worker, before its first call); a no-op
// otherwise.
void finish_heavy_barrier();
// A forked child must register anew (the parent's registration is not its own to rely on).
POOLSHIM_FORK_HOOK void heavy_barrier_atfork_child();

class Run {
 public:
  Run() = default;
  // A run nobody else can see (the serial path): take() is a compare.
  Run(size_t begin, size_t end) { open(begin, end, false); }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  // Owner: about to claim items (a claim RMW on some lane follows). Until open() or
  // unclaimed(), a watcher knows that items may be on their way into this run: a claimed item is
  // then neither unclaimed nor in a run. The claim's RMW (release) orders this store before it.
  void claiming() { claiming_.store(1, std::memory_order_relaxed); }
  void unclaimed() { claiming_.store(0, std::memory_order_release); }

  // Owner: starts a new run (the previous one is closed). fence: owners must fence each take().
  void open(size_t begin, size_t end, bool fence) {
    fence_ = fence;
    closed_ = false;
    begin_ = begin;
    committed_ = begin;
    next_.store(begin, std::memory_order_relaxed);
    end_.store(end, std::memory_order_release);  // a thief that sees this end sees this next
    claiming_.store(0, std::memory_order_release);
  }

  // Owner: the fence choice it opened the run with, for a Taker to keep in a register.
  bool fenced() const { return fence_; }

  // Owner: ends the run wherever it is (after an exception, or after the surface returned):
  // items not taken yet are not run by anyone. Returns at once when take() already closed it:
  // by the owner's own flag, not by end_ and thief_ (a closed run's end_ is 0, and a thief that
  // judged it open earlier may hold thief_ right now; settling again would close it at 0).
  void close() {
    if (!closed_) settle(~size_t{0});
  }

  // A participant that is not the owner: items started so far and the run's end, for watching
  // progress. Racy by nature; only steal() decides.
  size_t started() const { return next_.load(std::memory_order_relaxed); }
  size_t end() const { return end_.load(std::memory_order_acquire); }
  bool busy() const { return thief_.load(std::memory_order_acquire) != 0; }
  bool closed() const { return end_.load(std::memory_order_acquire) == 0 && !busy(); }
  bool in_claim() const { return claiming_.load(std::memory_order_acquire) != 0; }

  // Owner, after close(): the items this owner ran, [begin(), closed_end()) (a thief took the
  // rest). Not meaningful for a run an exception left open.
  size_t begin() const { return begin_; }
  size_t closed_end() const { return closed_end_; }

  // Takes every item of this run that its owner has not started; *begin/*end get them (the
  // thief then opens them as a run of its own). False: nothing taken. fence: the call's owners
  // fence each take() (the same value they were opened with), so a fence here suffices. half:
  // take only the upper half of the unstarted items (rounded up), leaving the owner the rest.
  bool steal(bool fence, size_t* begin, size_t* end, bool half = false);

 private:
  friend class Taker;

  // Owner, through a Taker: may item i be started now? Items are taken in increasing order, one
  // after the other. True: i is this owner's, run it. False: the run is over (i belongs to nobody
  // here). `fence` is fence_, passed in from the walk's registers (Taker).
  bool take(size_t i, bool fence) {
    POOLSHIM_ASSERT(fence == fence_);
    next_.store(i + 1, std::memory_order_relaxed);
    order(fence);
    if (__builtin_expect(i < end_.load(std::memory_order_relaxed), 1)) return true;
    return settle(i) > i;
  }

  // Owner, through a Taker: starts every item of [i, want) at once (one call of a surface covers
  // them); a surface uses either take() or take_upto() on a run, never both. Returns the end of
  // what was granted: items [i, result) are the owner's; result <= i means the run is over. Used
  // by the dynamic variants, whose calls span several items.
  size_t take_upto(size_t i, size_t want, bool fence) {
    POOLSHIM_ASSERT(fence == fence_);
    if (want > committed_) {
      committed_ = want;
      next_.store(want, std::memory_order_relaxed);
      order(fence);
    }
    size_t e = end_.load(std::memory_order_relaxed);
    if (__builtin_expect(want <= e, 1)) return want;
    e = settle(i);
    return e < want ? e : want;
  }

  static void order(bool fence) {
    if (fence)
      std::atomic_thread_fence(std::memory_order_seq_cst);
    else
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the barrier does the rest
  }
  // Slow path of take(): waits out a thief, then returns the end in force; closes the run (end
  // 0) when that end is at or below `first`, the first item the owner wanted.
  size_t settle(size_t first);

  // Read by watchers on every look (and written once per run): the end, the flags.
  std::atomic<size_t> end_{0};         // owner at open(); thieves lower it; 0 = closed or pending
  std::atomic<unsigned> thief_{0};     // 1 while a thief decides (exchange); owner waits on it
  std::atomic<unsigned> claiming_{0};  // owner: 1 from claiming() to open() / unclaimed()
  // Written by the owner once per item, on a line of its own: a watcher that polled it would
  // make every take() a cache miss (docs/scheduler.md, "Runs and stealing"). Watchers
  // read it only every few microseconds (progress, stalls) and thieves when they steal.
  // Left uninitialised by the constructor: open() sets them all, and nobody reads them before
  // (watchers and thieves read next_ only after seeing an end, which open() publishes). A call
  // constructs its lanes afresh, and each line it writes is one the previous call's owner may
  // hold: not zeroing this one keeps it in that owner's cache (a store miss less per lane).
  alignas(64) std::atomic<size_t> next_;  // owner: items below are started (relaxed stores)
  size_t committed_;                      // owner only: the last value take_upto() stored in next_
  size_t begin_;                          // owner only: where the run opened
  size_t closed_end_;   // owner only: the end in force when the owner closed the run
  bool fence_;          // owner only
  bool closed_ = true;  // owner only: settle() closed this run (closed_end_ is set)
};

// The owner's side of a run while a surface walks it, kept in the walk's locals:
//   core::Taker taker(run);
//   for (size_t i = begin; taker.take(i); ++i) task(i);
// The run's fence choice is read once, when the walk starts, and stays in a register across the
// task calls. Read from the run on every item (an opaque task call in between makes the compiler
// load it again), its load and branch cost as much as the rest of take() (docs/bench.md, "Per
// item: the fence flag out of the loop").
class Taker {
 public:
  explicit Taker(Run& run) : run_(run), fence_(run.fenced()) {}
  bool take(size_t i) { return run_.take(i, fence_); }
  size_t take_upto(size_t i, size_t want) { return run_.take_upto(i, want, fence_); }

 private:
  Run& run_;
  const bool fence_;
};

}  // namespace poolshim::core
