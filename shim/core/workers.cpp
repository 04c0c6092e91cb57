// Worker threads (workers.h). A worker's life: look for a call it may join (help_one_call in
// join.cpp); when there is none, spin on the wake epoch for kSpinNs, looking at the patient calls
// every few microseconds, then sleep on it.
//
// Wake protocol (no lost wake-up): a sleeper increments g_sleepers, then re-reads g_epoch and
// sleeps only if it is unchanged; a waker bumps g_epoch, then reads g_sleepers. Both sides use
// seq_cst, so at least one of them sees the other's write. A patient call moves no epoch: its
// caller makes its ticket odd, then reads g_sleepers, and publishes loud when every worker
// sleeps; a sleeper, after its increment, reads the patient calls' tickets and stays awake
// while one is open that it could join.
#include "core/workers.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>

#include <atomic>

#include "base/clock.h"
#include "base/fork_hooks.h"
#include "budget/budget.h"
#include "core/busy.h"
#include "core/cache_line.h"
#include "core/counters.h"
#include "core/futex.h"
#include "core/gang.h"
#include "core/gang_seats.h"
#include "core/placement.h"
#include "core/pool_internal.h"
#include "core/run.h"
#include "core/servers.h"
#include "core/thread_start.h"
#include "core/tls.h"
#include "core/wait.h"
#include "diag/log.h"

namespace poolshim::core::workers {

// Workers alive. Incremented under g_spawn_mutex (release), decremented by a worker that a task
// ended (worker_main), read lock-free (acquire): count(), ensure() (workers.h).
std::atomic<size_t> g_count{0};

namespace {

// Bumped (seq_cst) by every wake(); workers sleep on it. Written by callers, read by workers.
// On a line of its own: every spinning worker polls it; sleepers, the count and the failure
// (read on every call) are elsewhere.
OnLine<uint32_t> g_epoch{0};
// Workers between "about to sleep" and "awake". Written by workers, read by wake().
OnLine<uint32_t> g_sleepers{0};
// Workers spinning on the epoch: while one is, wake_one() wakes nobody (the spinner sees the
// epoch and joins; a sleeper woken too would find its lane taken).
OnLine<uint32_t> g_spinners{0};
// Workers created and not yet in their loop (starting()). Written at spawns only.
std::atomic<size_t> g_starting{0};
// Bumped by a new worker once it is in its loop; a spawner sleeps on it (await_started()).
std::atomic<uint32_t> g_started{0};
// Wake-ups issued by wake_one() whose worker has not tried to join yet (the cascade's bound).
OnLine<long> g_in_flight{0};
// This worker came back from a futex sleep and has not settled its wake-up yet.
POOLSHIM_FAST_TLS thread_local bool t_woken = false;
// Serializes spawning; try-locked, so a caller never waits for another caller's spawn.
pthread_mutex_t& g_spawn_mutex = base::g_fork_locks.worker_spawn;  // base/fork_hooks.h
// Why the last spawn failed with no worker at all (static string), or nullptr. Under the mutex.
std::atomic<const char*> g_failure{nullptr};
// A spawn that started some workers but not all (pthread_create failed: EAGAIN from pids.max or
// RLIMIT_NPROC) is decided once: the pool runs with the workers it has, one warning says so, and
// the missing ones are retried with backoff, after 1, 2, 4, ... calls (about 10 attempts in 1000
// calls, then at most one per kMaxRetryInterval calls), never on every call: each attempt costs
// a trylock, two sigprocmask calls and a failing pthread_create.
constexpr long kMaxRetryInterval = 1 << 16;
std::atomic<long> g_retry_in{0};  // calls to skip before the next attempt (relaxed: a hint)
long g_retry_interval = 0;        // under the mutex: the backoff now, 0 = no failure
std::atomic<size_t> g_wanted{0};  // the most workers a call asked for (the info API)

using base::now_ns;
using wait::kSpinNs;

enum class Spun { moved, patient, idle };

// Pauses between two clock reads of a spinning worker (its deadline, its next look at the
// patient calls): fewer than wait.h's kClockPauses, since its looks are due every microsecond or
// so (0.2-2 us at 10-140 ns a pause).
constexpr unsigned kLookPauses = 16;

// Spins on the epoch for kSpinNs: moved when it changed (a call was published loud), patient when
// a patient call is due (*look), idle when the time ran out. It also looks at the patient calls
// (publish.h, "Patience"), which move no epoch: their callers' activity counts as activity (the
// deadline moves on). It looks every kPatientLookNs, and kPatienceNs after a look that saw a call
// open for the first time, to find it still open; not more often: each look reads the ticket
// line of every patient slot, which its caller writes twice a call, so the caller's next write
// to it is a miss (docs/bench.md, "How often a worker looks"). A confirming look that finds
// another call (the first one ended) waits the full kPatientLookNs for the next: a stream of
// short calls is looked at twice in 5 us, not once a microsecond. The worker counts as spinning
// until it returns, also while it waits out a patient call's patience.
Spun spin(uint32_t seen, uint32_t gangs_seen, const std::atomic<uint64_t>* dock,
          PatientLook* look) {
  long deadline = now_ns() + gang::spin_ns(kSpinNs);
  long next_look = 0;       // the first clock read looks at once
  bool confirming = false;  // the next look confirms a call seen open for the first time
  POOLSHIM_COUNT_SHARED();
  g_spinners.fetch_add(1, std::memory_order_seq_cst);
  Spun r = Spun::idle;
  for (unsigned i = 1;; ++i) {
    cpu_relax();
    if (g_epoch.load(std::memory_order_relaxed) != seen || gang::gangs_opened() != gangs_seen ||
        (dock != nullptr && dock->load(std::memory_order_relaxed) != servers::kDocked)) {
      r = Spun::moved;
      break;
    }
    if (i % kLookPauses != 0) continue;
    const long now = now_ns();
    if (now >= next_look) {
      *look = look_at_patient_calls(now);
      if (look->due) {
        r = Spun::patient;
        break;
      }
      confirming = look->fresh && !confirming;
      next_look = now + (confirming ? kPatienceNs : kPatientLookNs);
      if (look->active) deadline = now + kSpinNs;
    }
    if (now > deadline) break;
  }
  POOLSHIM_COUNT_SHARED();
  g_spinners.fetch_sub(1, std::memory_order_relaxed);
  return r;
}

// A worker's first steps, once in its life: it stops counting as starting, wakes its spawner
// (await_started()), steps off its creator's CPU and registers the heavy barrier when spawn() left
// that to it (core/run.h).
void begin_worker() {
  gang::note_worker(true);  // before it stops counting as starting: always in one of the two
  g_starting.fetch_sub(1, std::memory_order_relaxed);
  g_started.fetch_add(1, std::memory_order_release);
  futex_wake(&g_started, INT_MAX);
  placement::step_off_waker();  // a new thread too may start on its creator's CPU
  finish_heavy_barrier();
}

// An idle worker sleeps on the epoch it saw. Counted as a sleeper first, then a look at the
// patient calls (both seq_cst, wait.h's sleep_on), against a caller's "ticket, then the sleepers"
// (publish.cpp): either that caller sees this worker awake and publishes quietly, and then this
// worker sees the call open and does not sleep while it could join it, or the caller sees it
// asleep and publishes loud. Likewise with a gang's open (gang_seats.h, gangs_opened()), which
// moves no epoch unless its caller sees a sleeper. True when it was woken (or woke spuriously).
bool sleep_idle(uint32_t seen, uint32_t gangs_seen) {
  return wait::sleep_on(
      g_epoch, seen, wait::SleepCount{g_sleepers},
      [gangs_seen] {
        return gang::gangs_opened() != gangs_seen || (patient_call_open() && busy::has_room());
      },
      [] {
        t_woken = true;  // perhaps by wake_one(), perhaps by wake() or spuriously
        placement::step_off_waker();
        POOLSHIM_COUNT(kWoken, 1);
      });
}

void* worker_main(void*) {
  // A task that ends its thread (pthread_exit, cancellation) unwinds through here: the pool
  // forgets the thread, so the next call starts another instead of counting a dead one.
  struct Forget {
    ~Forget() {
      gang::note_worker(false);
      g_count.fetch_sub(1, std::memory_order_acq_rel);
    }
  } forget;
  begin_worker();
  bool yield_next = false;  // the last call asked its workers to sleep right after it
  POOLSHIM_COUNTERS_ONLY(counters::set_worker_thread(); bool woken = false;)
  for (;;) {
    uint32_t seen = g_epoch.load(std::memory_order_acquire);
    const uint32_t gangs_seen = gang::gangs_opened();  // before the look: a later open moves it
    if (gang::serve_one()) {  // an OpenMP team's open seat first (core/gang.h)
      settle_wake();
      continue;
    }
    Help h = help_one_call();
    settle_wake();  // (help_one_call settles it as soon as it has tried to join)
    POOLSHIM_COUNTERS_ONLY(if (woken) {
      if (h == Help::over_budget) POOLSHIM_COUNT(kWokenNoRoom, 1);
      if (h == Help::nothing) POOLSHIM_COUNT(kWokenNoLane, 1);
      woken = false;
    })
    if (h == Help::helped || h == Help::helped_yield) {
      yield_next = h == Help::helped_yield;
      continue;
    }
    // Spin first (a call that follows within kSpinNs costs no system call on either side),
    // unless the budget is full or the last call asked for PTHREADPOOL_FLAG_YIELD_WORKERS.
    if (h == Help::nothing && !yield_next) {
      PatientLook look;
      // Docked while it spins: a gang's start may give it a seat (gang_seats.h, "Docking"),
      // which it runs before anything else.
      std::atomic<uint64_t>* dock = gang::dock();
      Spun r = spin(seen, gangs_seen, dock, &look);
      if (gang::undock_and_serve(dock)) continue;
      if (r == Spun::moved) continue;
      if (r == Spun::patient) {
        h = join_patient_call(look);
        yield_next = h == Help::helped_yield;
        continue;
      }
    }
    yield_next = false;
    const bool slept = sleep_idle(seen, gangs_seen);
    POOLSHIM_COUNTERS_ONLY(woken = slept;)
    (void)slept;
  }
  return nullptr;
}

// The spawner waits, asleep, until the workers it created are in their loop, as
// pthreadpool_create() does, for at most kStartWaitNs. Why: a new thread often starts on its
// creator's CPU, and while the creator keeps that CPU busy with its call an idle CPU can take
// milliseconds to pull the new thread over: meanwhile every call runs on its caller alone, or both
// threads share one CPU (docs/scheduler.md, "Where the first steps run"). Sleeping lets the new
// thread run at once, and the creator's wake-up then puts the creator on an idle CPU. The bound
// keeps a host that cannot start threads quickly (load, cgroup) from waiting on them: the pool
// works without the wait.
constexpr long kStartWaitNs = 2 * 1000 * 1000;

void await_started() {
  const long deadline = now_ns() + kStartWaitNs;
  for (;;) {
    const uint32_t seen = g_started.load(std::memory_order_acquire);
    if (g_starting.load(std::memory_order_relaxed) == 0) return;
    const long left = deadline - now_ns();
    if (left <= 0) return;
    futex_wait_for(&g_started, seen, left);
  }
}

}  // namespace

size_t starting() { return g_starting.load(std::memory_order_relaxed); }

namespace {

// Creates workers until `have` reach n or pthread_create fails; returns its error (0: none).
int create_workers(size_t* have, size_t n) {
  SignalsBlocked blocked;  // workers must not run the host's signal handlers
  placement::note_waker();
  int err = 0;
  while (*have < n) {
    g_starting.fetch_add(1, std::memory_order_relaxed);  // before the thread can subtract it
    err = start_detached(worker_main, "poolshim");
    if (err != 0) {
      g_starting.fetch_sub(1, std::memory_order_relaxed);
      break;
    }
    ++*have;
    g_count.fetch_add(1, std::memory_order_release);  // a dying worker may subtract meanwhile
  }
  return err;
}

// Under the spawn mutex, after create_workers(): the log line of the first start, and what a
// failure decides (no worker at all: serial for good; some: retry with backoff).
void note_spawn(size_t have, size_t before, size_t n, int err) {
  if (have > 0)
    diag::log_once(diag::LogSite::pool_started, diag::LogLevel::info,
                   "pool started: %zu threads (%zu worker%s plus the caller; budget %zu from %s)",
                   have + 1, have, have == 1 ? "" : "s", budget::current().threads,
                   budget::current().source);
  // Static strings only: the reason is handed out through the info API for the process's life.
  const char* why = err == EAGAIN ? "pthread_create failed: EAGAIN (thread limit reached)"
                                  : "pthread_create failed";
  if (err != 0 && have == 0) {
    if (g_failure.load(std::memory_order_relaxed) == nullptr) {
      g_failure.store(why, std::memory_order_relaxed);
      diag::warn_once(diag::LogSite::workers_cannot_start,
                      "cannot start worker threads (%s); parallel calls run serially", why);
    }
  } else if (err != 0) {
    bool first = g_retry_interval == 0;
    g_retry_interval = first                                   ? 1
                       : g_retry_interval >= kMaxRetryInterval ? kMaxRetryInterval
                                                               : 2 * g_retry_interval;
    g_retry_in.store(g_retry_interval, std::memory_order_relaxed);
    if (first)
      diag::warn_once(diag::LogSite::workers_partial,
                      "degraded: %zu of %zu worker threads started (%s); the pool runs with "
                      "them and retries with backoff",
                      have, n, why);
    else
      POOLSHIM_LOG(debug, "worker retry: %zu of %zu worker threads (%s); next attempt in %ld calls",
                   have, n, why, g_retry_interval);
  } else if (g_retry_interval != 0) {
    g_retry_interval = 0;
    POOLSHIM_LOG(info, "worker retry: %zu of %zu worker threads now started (%zu more)", have, n,
                 have - before);
  }
}

}  // namespace

size_t spawn(size_t n) {
  size_t have = g_count.load(std::memory_order_acquire);
  if (have >= n) return have;
  // After a failure that left no worker at all the pool stays serial (reported once); trying
  // pthread_create again on every call would only add a failing system call to each.
  if (have == 0 && g_failure.load(std::memory_order_relaxed) != nullptr) return 0;
  // After a partial failure: skip this call's attempt while the backoff lasts.
  if (g_retry_in.load(std::memory_order_relaxed) > 0) {
    g_retry_in.fetch_sub(1, std::memory_order_relaxed);
    return have;
  }
  if (pthread_mutex_trylock(&g_spawn_mutex) != 0) return have;  // someone else is spawning
  have = g_count.load(std::memory_order_relaxed);
  if (n > g_wanted.load(std::memory_order_relaxed)) g_wanted.store(n, std::memory_order_relaxed);
  const size_t before = have;
  // Before the first worker exists: the process may still be single-threaded, where registering
  // for the heavy barrier costs microseconds instead of a grace period (core/run.h).
  heavy_barrier_ready();
  const int err = create_workers(&have, n);
  note_spawn(have, before, n, err);
  pthread_mutex_unlock(&g_spawn_mutex);
  if (have > before) await_started();
  return have;
}

namespace {

// futex_wake on the epoch, counted (counters.h); returns how many it woke.
long counted_wake(int n) {
  placement::note_waker();
  long woke = futex_wake(&g_epoch, n);
  POOLSHIM_COUNT(kFutexWakes, 1);
  POOLSHIM_COUNT(kThreadsWoken, woke > 0 ? static_cast<uint64_t>(woke) : 0);
  return woke;
}

}  // namespace

void wake(size_t n) {
  // The bump alone redirects spinning workers; the futex call only happens for sleepers.
  POOLSHIM_COUNT_SHARED();
  g_epoch.fetch_add(1, std::memory_order_seq_cst);
  uint32_t sleeping = g_sleepers.load(std::memory_order_seq_cst);
  if (sleeping == 0 || n == 0) return;
  counted_wake(n < sleeping ? static_cast<int>(n) : static_cast<int>(sleeping));
}

bool wake_one(long room, bool publish) {
  if (publish) {
    POOLSHIM_COUNT_SHARED();
    g_epoch.fetch_add(1, std::memory_order_seq_cst);
  }
  if (g_sleepers.load(std::memory_order_seq_cst) == 0) return false;
  if (g_spinners.load(std::memory_order_seq_cst) != 0) return false;  // a spinner comes instead
  long in_flight = g_in_flight.load(std::memory_order_relaxed);
  do {
    if (in_flight >= room) return false;  // as many on their way as the budget can take
    POOLSHIM_COUNT_SHARED();
  } while (!g_in_flight.compare_exchange_weak(in_flight, in_flight + 1, std::memory_order_acq_rel));
  POOLSHIM_COUNTERS_ONLY(counters::raise_to(counters::kMaxInFlight, in_flight + 1));
  // Nobody woken: the sleeper had not gone to sleep yet (it sees the epoch) or none was left.
  if (counted_wake(1) <= 0) {
    POOLSHIM_COUNT_SHARED();
    g_in_flight.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  return true;
}

bool any_asleep() { return g_sleepers.load(std::memory_order_seq_cst) != 0; }

bool awake() {
  return g_sleepers.load(std::memory_order_seq_cst) < g_count.load(std::memory_order_acquire);
}

void settle_wake() {
  if (!t_woken) return;
  t_woken = false;
  long in_flight = g_in_flight.load(std::memory_order_relaxed);
  while (in_flight > 0) {  // a wake() or a spurious return took no reservation: never below 0
    POOLSHIM_COUNT_SHARED();
    if (g_in_flight.compare_exchange_weak(in_flight, in_flight - 1, std::memory_order_acq_rel))
      break;
  }
}

const char* failure() { return g_failure.load(std::memory_order_relaxed); }

size_t wanted() { return g_wanted.load(std::memory_order_relaxed); }

// A fork while another thread spawns would leave the child's mutex locked: take it first.
void atfork_prepare() {
  pthread_mutex_lock(&g_spawn_mutex);
  base::map_for_children(g_count, g_sleepers, g_in_flight, g_spinners, g_starting, g_failure,
                         g_retry_in, g_retry_interval, g_wanted);
}
void atfork_parent() { pthread_mutex_unlock(&g_spawn_mutex); }
void atfork_child() {
  pthread_mutex_unlock(&g_spawn_mutex);
  base::reset_if_set(g_count, 0);
  base::reset_if_set(g_sleepers, 0);
  base::reset_if_set(g_in_flight, 0);
  base::reset_if_set(g_spinners, 0);
  base::reset_if_set(g_starting, 0);
  base::reset_if_set(t_woken, false);
  base::reset_if_set(g_failure, nullptr);
  base::reset_if_set(g_retry_in, 0);  // the child tries afresh (its own threads)
  base::reset_if_set(g_retry_interval, 0);
  base::reset_if_set(g_wanted, 0);
}

}  // namespace poolshim::core::workers
