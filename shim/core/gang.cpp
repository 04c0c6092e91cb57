// Gangs (gang.h): a caller's gang from start to join, its preferences, pause.
//
// Who waits: the caller, for its seats to be claimed (spinning: start() returns once every member
// runs) and for its members to return (core/wait.h: spinning, then on the done counter's futex).
// Pool workers are woken through workers::wake(); gang threads each sleep on a word of their own
// (gang_threads.h). The members of a held gang wait for its last claim (gang_seats.h, "Holding").
#include "core/gang.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "base/assert.h"
#include "base/bits.h"
#include "base/clock.h"
#include "core/counters.h"
#include "core/futex.h"
#include "core/gang_family.h"
#include "core/gang_seats.h"
#include "core/gang_threads.h"
#include "core/placement.h"
#include "core/servers.h"
#include "core/size.h"
#include "core/tls.h"
#include "core/wait.h"
#include "core/workers.h"
#include "diag/log.h"

namespace poolshim::core::gang {
namespace {

using base::count_bits;
using base::now_ns;

// How long open seats wait for idle pool workers (woken) before gang threads serve them, and how
// long the caller waits before it looks again after it started none.
constexpr long kSeatWaitNs = 200 * 1000;
// ... and after it started some (a new thread's first run).
constexpr long kStartedWaitNs = 1000 * 1000;
// How long open seats wait for the threads that will come (servers::idle(): pool workers and gang
// threads alive and not busy, or starting) before gang threads beyond the budget serve them. A
// worker started by this gang can take longer than the short wait to run for the first time; a
// gang thread started for its seat instead stays, and then spins beside it on a machine that has
// no core for either (docs/openmp.md).
constexpr long kIdleWaitNs = 100L * 1000 * 1000;
// How long the caller spins for its members before it sleeps (as long as 20000 pauses took on the
// machines measured: docs/scheduler.md, "One wait policy").
constexpr long kJoinSpinNs = 500 * 1000;
// How often pause() looks whether the threads it ends have ended.
constexpr long kPausePollNs = 100 * 1000;

// A caller's preferences: who served its seats last time (under that pause count).
struct Owners {
  uint32_t id[kAffine];
  uint32_t pause;
};
POOLSHIM_FAST_TLS thread_local Owners t_owners{};

// The seats' preferred ids for the caller's next gang of `affine` affine seats, from who served
// them last time (unless a pause came since, or the thread is busy now or kept for another
// family); true if any.
bool preferences(unsigned affine, const Policy& policy, uint32_t family, uint32_t* pref) {
  Owners& own = t_owners;
  if (own.pause != servers::pauses()) {
    own = Owners{};
    own.pause = servers::pauses();
  }
  bool prefs = false;
  for (unsigned i = 1; i < affine; ++i) {
    uint32_t id = policy.prefer_ns > 0 ? own.id[i] : 0;
    if (servers::busy(id) || !servers::serves_family(servers::keeper(id), family)) id = 0;
    pref[i] = id;
    prefs |= id != 0;
  }
  return prefs;
}

// Waits until every seat of s's gang is claimed: preferred seats wait up to prefer_ns for their
// threads (or until one went busy), then open to all; seats left after kSeatWaitNs get gang
// threads (fill_with_gang_threads), looked at again every kSeatWaitNs (kStartedWaitNs after
// starting some). While crowded() it yields its CPU between looks instead of spinning. Returns 0
// once every seat is claimed; when the threads it needed could not all be started (and
// may_retract), the seats it kept when it took the others back instead (retract_seats: a held
// gang keeps the members that came, any other only if none came).
uint32_t await_seats(Slot& s, unsigned n, unsigned affine, bool prefs, long prefer_ns,
                     size_t pool_workers, bool may_retract) {
  // Every seat given to a docked thread, or claimed already: no clock read (a vDSO call of 20-50
  // ns on a VM's kvm-clock, on every region's path).
  if (unclaimed(s, n) == 0) return 0;
  const long t0 = now_ns();
  const bool yield = crowded();  // read once: it is two loads and a call
  long deadline = t0 + (prefs ? prefer_ns : kSeatWaitNs);
  long opened = t0;  // when the seats opened to any thread
  bool open = !prefs;
  while (unclaimed(s, n) != 0) {
    if (!open && preferred_busy(s, affine)) deadline = 0;  // its thread took other work
    const long now = now_ns();
    if (now > deadline) {
      if (!open) {
        open = true;
        opened = now;
        s.open_all.store(true, std::memory_order_seq_cst);
        if (pool_workers > 0) workers::wake(pool_workers);
        wake_gang_threads();
        deadline = now_ns() + kSeatWaitNs;
      } else {
        bool short_of = false;
        unsigned started = fill_with_gang_threads(s, n, now - opened < kIdleWaitNs, &short_of);
        // Short of threads: the gang is taken back to the members that came, once every thread
        // started, and every idle one woken, has come to look for a seat (a new thread's first
        // run can take longer than this wait), so that it is as large as the threads that could
        // start make it.
        if (short_of && may_retract && starting_threads() == 0 && workers::starting() == 0)
          if (const uint32_t kept = retract_seats(s, n)) return kept;
        // Threads that will come were left seats: look again after a while (they may take
        // other work meanwhile); longer after starting threads (their first run).
        deadline = now_ns() + (started != 0 ? kStartedWaitNs : kSeatWaitNs);
      }
    }
    if (yield)
      sched_yield();  // the threads it waits for may need this CPU
    else
      cpu_relax();
  }
  return 0;
}

// Wakes the gang threads that a gang's seats not given to docked threads prefer, when each
// prefers one (the threads of the caller's previous gang); else every gang thread.
void wake_gang_threads_for(unsigned n, unsigned affine, bool prefs, const uint32_t* pref,
                           uint32_t assigned) {
  bool each = prefs && n <= kAffine;
  for (unsigned i = 1; each && i < affine; ++i) each = pref[i] != 0 || ((assigned >> i) & 1);
  if (!each) return wake_gang_threads();
  for (unsigned i = 1; i < affine; ++i)
    if (((assigned >> i) & 1) == 0) wake_gang_thread(pref[i]);
}

// Short of threads: the gang of n is the members that came, the seats kept (await_seats), which
// the caller's side (policy.shrink) learns before they run (libgomp ends the process here, with
// "Thread creation failed"; fewer threads than asked for is what OpenMP allows). Returns its
// size; at 1 the slot is free already.
unsigned shrink_to_kept(Slot& s, unsigned n, uint32_t kept, void* ctx, const Policy& policy) {
  const unsigned members = kept_members(s, kept);
  diag::log_once(diag::LogSite::team_shrunk, diag::LogLevel::info,
                 "team: %u of a team of %u's threads could not be started (pthread_create "
                 "failed); the team runs with %u",
                 n - members, n, members);
  policy.shrink(ctx, members);
  if (members > 1) release_held(s, kept);
  return members;
}

}  // namespace

bool serve_one() {
  if (servers::retire_if_paused()) pthread_exit(nullptr);  // worker_main forgets the thread
  return serve_any();
}

size_t extra_threads() { return started_threads(); }

void note_worker(bool alive) { servers::set_alive(servers::my_id(), alive); }

void note_pool_call(bool in_call) {
  if (in_call) placement::unbind();  // a pool call runs on the thread's own mask, not a place
  servers::set_busy(servers::id_if_any(), in_call);
}

Gang start(unsigned n, MemberFn fn, void* ctx, const Policy& policy) {
  Gang g;
  if (n <= 1) return g;
  if (n > kMaxMembers) n = kMaxMembers;
  Slot* s;
  // More concurrent gangs than slots is rare; a slot frees as soon as its gang's members
  // returned, and gangs never wait on each other, so this wait ends. It yields its CPU: with every
  // slot open the CPUs are crowded (kSlots gangs), and their members need them to end (64 host
  // threads each opening gangs of 2 on 2 CPUs: 3.9 s spinning here, against 91 ms on libgomp).
  while ((s = take_slot()) == nullptr) sched_yield();
  const unsigned affine = n < kAffine ? n : kAffine;
  const uint32_t family = policy.keep_threads ? own_family() : current_family();
  uint32_t pref[kAffine] = {};
  const bool prefs = preferences(affine, policy, family, pref);
  // Seats whose preferred thread is docked are given to it now: counted claimed at once.
  uint32_t assigned = 0;
  if (prefs) {
    const uint32_t gen = next_gen(*s);
    for (unsigned i = 1; i < affine; ++i)
      if (pref[i] != 0 && assign_docked(pref[i], *s, gen, i)) assigned |= uint32_t{1} << i;
    POOLSHIM_COUNT(kDockedSeats, count_bits(assigned));
  }
  // Held (gang_seats.h, "Holding") only when the threads alive cannot fill its seats: some must
  // be started, and starting them may fail. Threads alive but busy come back when their work ends.
  const bool may_hold =
      policy.shrink != nullptr && workers::count() + live_threads() < size_t{n} - 1;
  open_slot(*s, n, fn, ctx, Servers{pref, prefs, family, policy.keep_threads}, assigned, may_hold);
  // Pool workers only up to the pool's size (workers.h: budget - 1); gang threads do the rest.
  // Spinning workers see the open (gangs_opened()); sleeping ones are woken, every one with
  // preferences: futex_wake picks sleepers at random. A gang whose every seat went to a docked
  // thread wakes nobody.
  const bool all_docked = !s->counted;  // open_slot decided it: no seat for others to find
  size_t pool_workers = pool_size() > 1 ? pool_size() - 1 : 0;
  if (pool_workers > 0 && !all_docked) {
    workers::ensure(n - 1 < pool_workers ? n - 1 : pool_workers);
    if (workers::any_asleep()) workers::wake(prefs ? pool_workers : n - 1);
  }
  if (started_threads() != 0 && !all_docked)
    wake_gang_threads_for(n, affine, prefs, pref, assigned);
  // Give idle workers a moment to take the seats (they spin on the pool's epoch, or wake from
  // its futex), then start gang threads for what is left.
  if (const uint32_t kept = await_seats(*s, n, affine, prefs, policy.prefer_ns, pool_workers,
                                        policy.shrink != nullptr)) {
    n = shrink_to_kept(*s, n, kept, ctx, policy);
    if (n == 1) return g;  // retract_seats freed the slot
    g.shrunk = true;
  } else {
    seated(*s);  // a held gang's members run once every seat is claimed
  }
  g.slot = s;
  g.n = n;
  g.outer_family = set_current_family(family);  // the gangs member 0 opens are its family's
  return g;
}

void join(const Gang& g) {
  if (g.slot == nullptr) return;
  Slot* s = static_cast<Slot*>(g.slot);
  const uint32_t others = g.n - 1;
  wait::await(s->done, wait::SleepFlag<uint32_t>{s->caller_asleep}, spin_ns(kJoinSpinNs),
              [others](uint32_t done) { return done >= others; });
  // Who served each seat: the next gang of this caller prefers them.
  Owners& own = t_owners;
  unsigned affine = g.n < kAffine ? g.n : kAffine;
  for (unsigned i = 1; i < affine; ++i)  // a shrunk gang's members ran renumbered: none
    own.id[i] = g.shrunk ? 0 : s->claimer[i].load(std::memory_order_relaxed);
  close_slot(*s, g.n);
  set_current_family(g.outer_family);
}

int pause(long wait_ns) {
  const uint32_t count = servers::begin_pause();
  servers::release_kept(0);  // the threads that end are kept for nobody; new ones start free
  t_owners = Owners{};
  t_owners.pause = count;
  // Wake every thread that may have served a seat, and give them a moment to end (libgomp
  // joins its threads); a thread busy elsewhere ends when it next looks for a seat.
  const long deadline = now_ns() + wait_ns;
  while (servers::served_threads() != 0 && now_ns() < deadline) {
    workers::wake(workers::count());
    wake_gang_threads();
    struct timespec ts = {0, kPausePollNs};
    nanosleep(&ts, nullptr);
  }
  return 0;
}

void run(unsigned n, MemberFn fn, void* ctx, const Policy& policy) {
  Gang g = start(n, fn, ctx, policy);
  fn(ctx, 0);
  join(g);
}

void atfork_prepare() { threads_atfork_prepare(); }
void atfork_parent() {}

void atfork_child() {
  seats_atfork_child();
  threads_atfork_child();
  servers::atfork_child();
  // The parent's threads are not the child's. Stored only if set: a store copies the page (and
  // no memcmp: its first call from the shim would bind its PLT entry in every child).
  bool set = t_owners.pause != 0;
  for (uint32_t id : t_owners.id) set |= id != 0;
  if (set) t_owners = Owners{};
}

}  // namespace poolshim::core::gang
