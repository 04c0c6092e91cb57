// A worker's way into a call (join.h) and its share of it; help_one_call() (pool_internal.h).
#include "core/join.h"

#include <cxxabi.h>

#include <atomic>

#include "core/busy.h"
#include "core/counters.h"
#include "core/gang.h"
#include "core/items.h"
#include "core/lanes.h"
#include "core/participate.h"
#include "core/slots.h"
#include "core/tls.h"
#include "core/workers.h"
#include "diag/log.h"

namespace poolshim::core {
namespace {

// Per slot, the lane this worker ran in the slot's last call it joined (0 = none): it asks for
// that lane first when it joins the slot's next call (affinity).
POOLSHIM_FAST_TLS thread_local uint16_t t_last_lane[kSlots];

// The lines a join touches after its reference, each one the caller wrote last (so each is a
// miss where the hand-off is slow), fetched at once instead of one after the other: the job's two
// lines, the lane the worker will ask for (its claim line and its run's line), the busy count and
// the surface's context; from the slot's line, which the reference needs anyway
// (docs/bench.md, "A joined call's misses"). The write hints compile to read prefetches on plain
// x86-64 (PREFETCHW is an extension).
inline void prefetch_join(const Slot& slot, size_t preferred) {
  const char* job = reinterpret_cast<const char*>(slot.job.load(std::memory_order_relaxed));
  if (job == nullptr) return;
  __builtin_prefetch(job);          // read: fn, ctx, lanes, flags
  __builtin_prefetch(job + 64, 1);  // written: the claim counters, drained, done
  busy::prefetch_count();
  if (const char* ctx = static_cast<const char*>(slot.ctx_hint.load(std::memory_order_relaxed))) {
    __builtin_prefetch(ctx);
    __builtin_prefetch(ctx + 64);
  }
  // The lane it prefers (affinity), else lane 1; within the lanes on the stack, so that the
  // address stays inside the array (a wider call's lane is fetched when taken).
  if (const Lane* lanes = slot.lane_hint.load(std::memory_order_relaxed)) {
    const size_t i = preferred != 0 && preferred < kInlineLanes ? preferred : 1;
    const char* lane = reinterpret_cast<const char*>(lanes + i);
    __builtin_prefetch(lane, 1);
    __builtin_prefetch(lane + 64, 1);
  }
}

// no_sanitize("null"): glibc's forced unwind carries no C++ object, so the documented
// `catch (abi::__forced_unwind&)` binds a null reference, which UBSan reports and aborts on
// (noinline: inlined into join, the attribute would not apply).
__attribute__((noinline, no_sanitize("null"))) void worker_share(Job& job, size_t lane) {
  try {
    Denormals d(job.flags);
    if (participate(job, lane, true) == Share::left) give_back_lane(job, lane);
  } catch (abi::__forced_unwind&) {
    // pthread_exit() or cancellation inside a task on a worker: it must not be swallowed (glibc
    // aborts if it is). The call goes on: the items this worker had claimed but not started stay
    // in its run, where the other participants take them (the Watcher). The unwind ends this
    // worker; the scopes in join() give back its slot reference and busy count on the way out,
    // and workers.cpp forgets the thread. Its lane is not given back: its run keeps the items.
    job.lost.store(true, std::memory_order_relaxed);  // before the reference goes (seq_cst)
    diag::log_once(diag::LogSite::task_ended_worker, diag::LogLevel::warn,
                   "a task ended its pool thread (pthread_exit or cancellation); the call's "
                   "other items run on the remaining threads");
    throw;
  } catch (...) {
    record_failure(job);
  }
}

}  // namespace

Help join(size_t s, uint64_t ticket) {
  struct BusyWorker {
    ~BusyWorker() { busy::worker_leave(); }
  };
  prefetch_join(g_slots[s], t_last_lane[s]);
  SlotRef ref(g_slots[s], s);
  Job* job = ref.slot.job.load(std::memory_order_seq_cst);
  // Still open after this worker's patience (the same ticket: the same call): the call is not
  // one its caller finishes before a worker could help, whether or not this one gets an item.
  if (ticket != kNoTicket && job != nullptr &&
      ref.slot.ticket.load(std::memory_order_relaxed) == ticket)
    job->outlived_patience.store(true, std::memory_order_relaxed);
  // A call whose items have all run (the caller ran the last ones before it withdrew the call)
  // is left at once: the done count is on the line has_free_lane() reads anyway.
  if (job == nullptr || all_done(*job) || !has_free_lane(*job) ||
      job->cancelled.load(std::memory_order_relaxed))
    return Help::nothing;
  POOLSHIM_ASSERT(job->slot == s);
  if (!busy::worker_try_enter()) return Help::over_budget;  // the budget's threads are all busy
  BusyWorker counted;
  size_t lane = take_lane(*job, t_last_lane[s]);
  if (lane >= job->lanes) return Help::nothing;
  t_last_lane[s] = static_cast<uint16_t>(lane < 65536 ? lane : 0);
  POOLSHIM_COUNTERS_ONLY(history::record_lane(*job, lane));
  POOLSHIM_COUNT(kJoins, 1);
  workers::settle_wake();  // this worker's wake-up (if it was woken) has joined
  const bool yield = (job->flags & kFlagYieldWorkers) != 0;  // read while the job is warm
  gang::note_pool_call(true);
  worker_share(*job, lane);
  gang::note_pool_call(false);
  return yield ? Help::helped_yield : Help::helped;
}

Help help_one_call() {
  uint64_t open = g_open.load(std::memory_order_acquire);
  while (open != 0) {
    size_t s = static_cast<size_t>(__builtin_ctzll(open));
    open &= open - 1;
    Help h = join(s, kNoTicket);
    if (h != Help::nothing) return h;
  }
  // No call it could join. When the budget's threads are all busy it could not join the next
  // one either: sleep at once (a caller that leaves wakes one) instead of spinning on a CPU
  // the busy threads need.
  return busy::has_room() ? Help::nothing : Help::over_budget;
}

}  // namespace poolshim::core
