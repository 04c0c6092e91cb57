// Gangs (team.h).
//
// Seats: a fixed table of gang slots in static storage, so a thread that read a slot never
// touches freed memory. Seats below kAffine are claimed in a mask word {generation:32, claimed
// seats:32} (bit i: seat i; seat 0 and the seats past the team are set from the start), the rest
// in order through the slot's word {generation:32, members:16, next seat:16}; both claims are
// compare-exchanges that keep the generation, so a claim can only succeed on the gang that was
// read. The caller writes fn, ctx, the preferences and the mask before it publishes the word
// (release); a claimer reads them after its acquire load and uses them only if its claim
// succeeds (acq_rel). The slot is reused only after its caller saw every seat claimed and every
// member done, which happens after each claimer's reads.
//
// Threadprivate data (OpenMP's threadprivate, __thread) persists per thread number, as with
// libgomp's thread pool: member i of a caller's team runs on the thread that ran it last time.
// Each serving thread has an id; a caller keeps, per seat below kAffine, the id of the thread
// that served it (recorded at join()). A gang opens with those ids as preferences: a seat with a
// preference is only for that thread, for up to kPreferNs (it is idle, spinning or asleep, and
// every pool worker is woken); then it is open to any thread (the preferred one was busy with
// other work or gone), and the caller records who took it. A server looks for a seat preferred
// for it in every open gang before it takes any other.
//
// omp_pause_resource (pause()): the threads that served a seat since the last pause end (a pool
// worker through pthread_exit, which workers.cpp's worker_main is made for; a gang thread by
// returning), so that the next regions' members start with fresh threadprivate data, as
// libgomp's destroyed threads do; callers forget their preferences.
//
// Who waits: the caller, for its members (spinning, then on the done counter's futex). Pool
// workers are woken through workers::wake(); gang threads sleep on g_gang_epoch.
#include "core/team.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "core/cache_line.h"
#include "core/futex.h"
#include "core/pool.h"
#include "core/size.h"
#include "core/tls.h"
#include "core/workers.h"
#include "diag/log.h"

namespace poolshim::core::team {
namespace {

constexpr unsigned kSlots = 32;
constexpr unsigned kAffine = 32;               // seats with a preferred thread (the mask's bits)
constexpr long kPreferNs = 50L * 1000 * 1000;  // how long a seat waits for its thread
// How long open seats wait for the threads that will come (idle_threads(): pool workers and gang
// threads alive and not busy, or starting) before gang threads beyond the budget serve them. A
// worker started by this gang can take longer than the short wait to run for the first time; a gang
// thread started for its seat instead stays, and then spins beside it on a machine that has no core
// for either (the empty parallel at 2 threads went from 0.5 to 1.9 us for the process's life).
constexpr long kIdleWaitNs = 100L * 1000 * 1000;

struct Slot {
  // {generation:32, members:16, next seat:16}; members == 0: the slot is closed. Written by the
  // caller (open, close: release) and by claimers (next seat, from kAffine on: acq_rel CAS).
  std::atomic<uint64_t> word{0};
  // {generation:32, claimed seats below kAffine:32}: written by the caller before it opens the
  // slot, then by claimers (acq_rel CAS).
  std::atomic<uint64_t> mask{0};
  std::atomic<uint32_t> pref[kAffine];     // the seat's preferred server id (0: none); caller
  std::atomic<uint32_t> claimer[kAffine];  // who claimed it: written before the member's done
  std::atomic<bool> open_all{false};       // preferences lifted (the wait ran out)
  std::atomic<MemberFn> fn{nullptr};       // written by the caller before it opens the slot
  std::atomic<void*> ctx{nullptr};
  std::atomic<uint32_t> done{0};           // members (other than 0) that returned; futex word
  std::atomic<bool> caller_asleep{false};  // the caller sleeps on done: members wake it
  std::atomic<bool> taken{false};          // owned by a caller between run()'s claim and release
};
Slot g_slots[kSlots];

// Gangs open (a fast check for idle workers). Written by callers, read by everyone.
std::atomic<uint32_t> g_open{0};
// Bumped when a gang needs gang threads; they sleep on it.
std::atomic<uint32_t> g_gang_epoch{0};
std::atomic<uint32_t> g_gang_sleepers{0};
// Gang threads started and not yet looking for seats (fill_with_gang_threads counts them coming).
std::atomic<uint32_t> g_gang_starting{0};
std::atomic<size_t> g_extra{0};  // gang threads started (workers beyond the budget)

// Serving threads' ids (1, 2, ...): a pool worker's or gang thread's at its start (note_worker,
// gang_thread_main), any other thread's on its first serve.
std::atomic<uint32_t> g_next_id{1};
POOLSHIM_FAST_TLS thread_local uint32_t t_id = 0;
// Per server (by id, below kTrackedIds), on a line of its own (each thread writes its own entry,
// on every pool call it joins; readers are gangs' slow paths):
//  - busy: running a seat or, as a pool worker, a share of a pool call (note_pool_call): a seat
//    does not wait for a thread that is busy with other work (another gang, a nested region,
//    another caller's pthreadpool call);
//  - alive: a pool worker or gang thread that exists now: with busy, who is idle (idle_threads()).
constexpr uint32_t kTrackedIds = 1024;
struct alignas(kCacheLine) Server {
  std::atomic<bool> busy{false};
  std::atomic<bool> alive{false};
};
Server g_server[kTrackedIds];
// Pauses so far; a thread that served a seat remembers the pause count then, plus 1 (0: never
// served), and ends at its next look for a seat once a pause moved the count.
std::atomic<uint32_t> g_pause{0};
std::atomic<uint32_t> g_served_threads{0};  // threads alive that served a seat
POOLSHIM_FAST_TLS thread_local uint32_t t_served = 0;

// A caller's preferences: who served its seats last time (under that pause count).
struct Owners {
  uint32_t id[kAffine];
  uint32_t pause;
};
POOLSHIM_FAST_TLS thread_local Owners t_owners{};
// The generation of each slot's gang this thread last served a seat of: a thread serves one
// seat per gang, as each member of a libgomp team is its own thread (threadprivate data).
POOLSHIM_FAST_TLS thread_local uint32_t t_gang_served[kSlots];

constexpr uint64_t all_bits = 0xffffffffu;
uint32_t gen_of(uint64_t w) { return static_cast<uint32_t>(w >> 32); }

constexpr uint64_t pack(uint32_t gen, unsigned members, unsigned seat) {
  return (uint64_t{gen} << 32) | (uint64_t{members & 0xffff} << 16) | (seat & 0xffff);
}
unsigned members_of(uint64_t w) { return static_cast<unsigned>((w >> 16) & 0xffff); }
unsigned seat_of(uint64_t w) { return static_cast<unsigned>(w & 0xffff); }

long now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

uint32_t my_id() {
  if (t_id == 0) t_id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  return t_id;
}

void run_seat(Slot& s, MemberFn fn, void* ctx, unsigned seat) {
  t_gang_served[&s - g_slots] = gen_of(s.word.load(std::memory_order_relaxed));
  uint32_t pause = g_pause.load(std::memory_order_relaxed);
  if (t_served == 0) g_served_threads.fetch_add(1, std::memory_order_relaxed);
  t_served = pause + 1;
  uint32_t id = my_id();
  if (seat < kAffine) s.claimer[seat].store(id, std::memory_order_relaxed);
  if (id < kTrackedIds) g_server[id].busy.store(true, std::memory_order_relaxed);
  fn(ctx, seat);
  if (id < kTrackedIds) g_server[id].busy.store(false, std::memory_order_relaxed);
  s.done.fetch_add(1, std::memory_order_seq_cst);
  if (s.caller_asleep.load(std::memory_order_seq_cst)) futex_wake(&s.done, 1);
}

// A seat below kAffine of slot s that this thread may claim: one preferred for it (*mine), else
// the first one open to it; kAffine when none. m: the mask read.
unsigned pick_seat(Slot& s, uint64_t m, uint32_t id, bool* mine) {
  uint32_t free = ~static_cast<uint32_t>(m);
  bool open = s.open_all.load(std::memory_order_relaxed);
  unsigned any = kAffine;
  while (free != 0) {
    unsigned i = static_cast<unsigned>(__builtin_ctz(free));
    free &= free - 1;
    uint32_t p = s.pref[i].load(std::memory_order_relaxed);
    if (p == id) return *mine = true, i;
    if (any == kAffine && (p == 0 || open)) any = i;
  }
  *mine = false;
  return any;
}

// Claims seat i of s's gang (mask m read for generation gen) and runs it; false if the claim
// lost (the caller reads again).
bool claim_affine(Slot& s, uint64_t m, unsigned i) {
  MemberFn fn = s.fn.load(std::memory_order_relaxed);
  void* ctx = s.ctx.load(std::memory_order_relaxed);
  if (!s.mask.compare_exchange_strong(m, m | (uint64_t{1} << i), std::memory_order_acq_rel,
                                      std::memory_order_acquire))
    return false;
  run_seat(s, fn, ctx, i);
  return true;
}

// Claims and runs one seat from kAffine on of slot s (in order); true if it ran one.
bool serve_overflow(Slot& s) {
  uint64_t w = s.word.load(std::memory_order_acquire);
  while (members_of(w) != 0 && seat_of(w) < members_of(w)) {
    MemberFn fn = s.fn.load(std::memory_order_relaxed);
    void* ctx = s.ctx.load(std::memory_order_relaxed);
    if (s.word.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
      run_seat(s, fn, ctx, seat_of(w));
      return true;
    }
  }
  return false;
}

// True when a pause came after the calling thread served a seat (pause()): it must end.
bool retire_if_paused() {
  if (t_served == 0 || t_served == g_pause.load(std::memory_order_acquire) + 1) return false;
  t_served = 0;
  g_served_threads.fetch_sub(1, std::memory_order_seq_cst);
  return true;
}

// One seat of any open gang, a seat preferred for this thread first; true if it ran one.
bool serve_any() {
  if (g_open.load(std::memory_order_acquire) == 0) return false;
  uint32_t id = my_id();
  for (int retry = 0; retry < 64; ++retry) {
    Slot* first = nullptr;  // the first gang with a seat open to this thread
    uint64_t first_m = 0;
    unsigned first_i = kAffine;  // kAffine: a seat from kAffine on
    bool lost = false;
    for (Slot& s : g_slots) {
      uint64_t w = s.word.load(std::memory_order_acquire);
      if (members_of(w) == 0 || t_gang_served[&s - g_slots] == gen_of(w)) continue;
      uint64_t m = s.mask.load(std::memory_order_acquire);
      if (gen_of(m) == gen_of(w) && (m & all_bits) != all_bits) {
        bool mine;
        unsigned i = pick_seat(s, m, id, &mine);
        if (mine) {
          if (claim_affine(s, m, i)) return true;
          lost = true;
          break;
        }
        if (i < kAffine && first == nullptr) first = &s, first_m = m, first_i = i;
      }
      if (first == nullptr && seat_of(w) < members_of(w)) first = &s, first_i = kAffine;
    }
    if (lost) continue;
    if (first == nullptr) return false;
    if (first_i == kAffine ? serve_overflow(*first) : claim_affine(*first, first_m, first_i))
      return true;
  }
  return false;
}

// A gang thread: serve seats; spin like a pool worker, then sleep on the gang epoch.
void* gang_thread_main(void*) {
  uint32_t id = my_id();
  if (id < kTrackedIds) g_server[id].alive.store(true, std::memory_order_relaxed);
  g_gang_starting.fetch_sub(1, std::memory_order_relaxed);
  for (;;) {
    uint32_t seen = g_gang_epoch.load(std::memory_order_acquire);
    if (retire_if_paused()) {
      if (id < kTrackedIds) g_server[id].alive.store(false, std::memory_order_relaxed);
      return nullptr;
    }
    if (serve_any()) continue;
    long deadline = now_ns() + workers::kSpinNs;
    bool moved = false;
    for (unsigned i = 1; !moved; ++i) {
      cpu_relax();
      moved = g_gang_epoch.load(std::memory_order_relaxed) != seen;
      if ((i & 63) == 0 && now_ns() > deadline) break;
    }
    if (moved) continue;
    g_gang_sleepers.fetch_add(1, std::memory_order_seq_cst);
    if (g_gang_epoch.load(std::memory_order_seq_cst) == seen) futex_wait(&g_gang_epoch, seen);
    g_gang_sleepers.fetch_sub(1, std::memory_order_relaxed);
  }
  return nullptr;
}

// Starts one gang thread (signals blocked, as pool workers); false when pthread_create fails.
bool start_gang_thread() {
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  g_gang_starting.fetch_add(1, std::memory_order_relaxed);  // before the thread can subtract it
  int err = pthread_create(&t, &attr, gang_thread_main, nullptr);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (err != 0) {
    g_gang_starting.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  pthread_setname_np(t, "poolshim-team");
  size_t n = g_extra.fetch_add(1, std::memory_order_relaxed) + 1;
  diag::log_once(diag::LogSite::team_extra_threads, diag::LogLevel::info,
                 "team: no idle pool worker for a team's seat; started a team thread beyond the "
                 "budget, as libgomp would (%zu so far; poolshim info counts them)",
                 n);
  return true;
}

void wake_gang_threads() {
  g_gang_epoch.fetch_add(1, std::memory_order_seq_cst);
  if (g_gang_sleepers.load(std::memory_order_seq_cst) != 0) futex_wake(&g_gang_epoch, 1 << 30);
}

Slot* take_slot() {
  for (Slot& s : g_slots) {
    bool expected = false;
    if (!s.taken.load(std::memory_order_relaxed) &&
        s.taken.compare_exchange_strong(expected, true, std::memory_order_acquire))
      return &s;
  }
  return nullptr;
}

// Seats nobody claimed after the wait: start gang threads for them (there may be idle ones,
// woken first). Members beyond what pthread_create gives run on the caller afterwards.
unsigned unclaimed(const Slot& s, unsigned members) {
  uint32_t free = ~static_cast<uint32_t>(s.mask.load(std::memory_order_acquire));
  unsigned next = seat_of(s.word.load(std::memory_order_acquire));
  return static_cast<unsigned>(__builtin_popcount(free)) + (next < members ? members - next : 0);
}

// Pool workers and gang threads alive and not busy (in no seat, no pool call), and pool workers
// started and not yet looking: the threads that will look for an open seat soon. Busy threads
// are counted rather than idle ones, so a thread descheduled between two looks still counts.
size_t idle_threads() {
  uint32_t ids = g_next_id.load(std::memory_order_relaxed);
  size_t n = workers::starting();
  for (uint32_t id = 1; id < ids && id < kTrackedIds; ++id)
    n += g_server[id].alive.load(std::memory_order_relaxed) &&
         !g_server[id].busy.load(std::memory_order_relaxed);
  return n;
}

// No more are started than seats are left beyond the threads that will look for one soon:
// gang threads starting, and (discount_idle, until the gang waited kIdleWaitNs for them) idle
// threads, less the members that already returned (idle again, perhaps, but a thread serves one
// seat of a gang). Returns how many it started; the caller looks again after a while (those
// threads may have gone to other work meanwhile).
unsigned fill_with_gang_threads(Slot& s, unsigned members, bool discount_idle) {
  wake_gang_threads();
  long deadline = now_ns() + 20 * 1000;
  while (now_ns() < deadline && unclaimed(s, members) != 0) cpu_relax();
  size_t idle = 0;
  if (discount_idle) {
    idle = idle_threads();
    size_t returned = s.done.load(std::memory_order_acquire);
    idle = idle > returned ? idle - returned : 0;
  }
  size_t coming = g_gang_starting.load(std::memory_order_relaxed) + idle;
  unsigned open = unclaimed(s, members);
  open = coming >= open ? 0 : open - static_cast<unsigned>(coming);
  unsigned started = 0;
  while (started < open && start_gang_thread()) ++started;
  return started;
}

}  // namespace

bool serve_one() {
  if (retire_if_paused()) pthread_exit(nullptr);  // worker_main forgets the thread as it unwinds
  return serve_any();
}

size_t extra_threads() { return g_extra.load(std::memory_order_relaxed); }

namespace {
bool all_claimed(const Slot& s, unsigned n) { return unclaimed(s, n) == 0; }

// Whether an unclaimed seat waits for a thread that went busy since the gang opened (it joined a
// pool call or another gang): the gang then opens its seats to any thread at once.
bool preferred_busy(const Slot& s, unsigned affine) {
  uint64_t m = s.mask.load(std::memory_order_relaxed);
  for (unsigned i = 1; i < affine; ++i) {
    if ((m >> i) & 1) continue;
    uint32_t id = s.pref[i].load(std::memory_order_relaxed);
    if (id != 0 && id < kTrackedIds && g_server[id].busy.load(std::memory_order_relaxed))
      return true;
  }
  return false;
}
}  // namespace

void note_worker(bool alive) {
  uint32_t id = my_id();
  if (id < kTrackedIds) g_server[id].alive.store(alive, std::memory_order_relaxed);
}

void note_pool_call(bool in_call) {
  if (t_id != 0 && t_id < kTrackedIds)
    g_server[t_id].busy.store(in_call, std::memory_order_relaxed);
}

Gang start(unsigned n, MemberFn fn, void* ctx) {
  Gang g;
  if (n <= 1) return g;
  if (n > kMaxMembers) n = kMaxMembers;
  Slot* s;
  // More concurrent gangs than slots is rare; a slot frees as soon as its gang's members
  // returned, and gangs never wait on each other, so this wait ends.
  while ((s = take_slot()) == nullptr) cpu_relax();
  uint32_t gen = static_cast<uint32_t>(s->word.load(std::memory_order_relaxed) >> 32) + 1;
  // Preferences: who served each seat last time, unless a pause came since.
  Owners& own = t_owners;
  if (own.pause != g_pause.load(std::memory_order_relaxed)) {
    own = Owners{};
    own.pause = g_pause.load(std::memory_order_relaxed);
  }
  unsigned affine = n < kAffine ? n : kAffine;
  bool prefs = false;
  for (unsigned i = 1; i < affine; ++i) {
    uint32_t id = own.id[i];
    if (id < kTrackedIds && g_server[id].busy.load(std::memory_order_relaxed)) id = 0;  // busy
    s->pref[i].store(id, std::memory_order_relaxed);
    prefs |= id != 0;
  }
  // Seat 0 (the caller) and the seats past the team are claimed from the start.
  uint64_t claimed = (affine == kAffine ? 0 : (~uint64_t{0} << affine) & all_bits) | 1;
  s->open_all.store(!prefs, std::memory_order_relaxed);
  s->fn.store(fn, std::memory_order_relaxed);
  s->ctx.store(ctx, std::memory_order_relaxed);
  s->done.store(0, std::memory_order_relaxed);
  s->mask.store((uint64_t{gen} << 32) | claimed, std::memory_order_relaxed);
  s->word.store(pack(gen, n, n > kAffine ? kAffine : n), std::memory_order_release);
  g_open.fetch_add(1, std::memory_order_seq_cst);
  // Pool workers only up to the pool's size (workers.h: budget - 1); gang threads do the rest.
  // With preferences every worker is woken: futex_wake picks sleepers at random.
  size_t pool_workers = pool_size() > 1 ? pool_size() - 1 : 0;
  if (pool_workers > 0) {
    workers::ensure(n - 1 < pool_workers ? n - 1 : pool_workers);
    workers::wake(prefs ? pool_workers : n - 1);
  }
  if (g_extra.load(std::memory_order_relaxed) != 0) wake_gang_threads();
  // Give idle workers a moment to take the seats (they spin on the pool's epoch, or wake from
  // its futex), then start gang threads for what is left. Preferred seats wait longer for their
  // threads first, then open to all.
  long t0 = now_ns();
  long deadline = t0 + (prefs ? kPreferNs : 200 * 1000);
  long opened = t0;  // when the seats opened to any thread
  bool open = !prefs;
  while (!all_claimed(*s, n)) {
    if (!open && preferred_busy(*s, affine)) deadline = 0;  // its thread took other work
    long now = now_ns();
    if (now > deadline) {
      if (!open) {
        open = true;
        opened = now;
        s->open_all.store(true, std::memory_order_seq_cst);
        if (pool_workers > 0) workers::wake(pool_workers);
        wake_gang_threads();
        deadline = now_ns() + 200 * 1000;
      } else {
        unsigned started = fill_with_gang_threads(*s, n, now - opened < kIdleWaitNs);
        // Threads that will come were left seats: look again after a while (they may take
        // other work meanwhile); longer after starting threads (their first run).
        deadline = now_ns() + (started != 0 ? 1000 : 200) * 1000L;
      }
    }
    cpu_relax();
  }
  g.slot = s;
  g.n = n;
  return g;
}

void join(const Gang& g) {
  if (g.slot == nullptr) return;
  Slot* s = static_cast<Slot*>(g.slot);
  for (unsigned spins = 0;;) {
    uint32_t d = s->done.load(std::memory_order_acquire);
    if (d >= g.n - 1) break;
    if (++spins < 20000) {
      cpu_relax();
      continue;
    }
    s->caller_asleep.store(true, std::memory_order_seq_cst);
    if (s->done.load(std::memory_order_seq_cst) == d) futex_wait(&s->done, d);
    s->caller_asleep.store(false, std::memory_order_relaxed);
  }
  // Who served each seat: the next gang of this caller prefers them.
  Owners& own = t_owners;
  unsigned affine = g.n < kAffine ? g.n : kAffine;
  for (unsigned i = 1; i < affine; ++i) own.id[i] = s->claimer[i].load(std::memory_order_relaxed);
  uint64_t w = s->word.load(std::memory_order_relaxed);
  s->word.store(w & ~uint64_t{0xffffffff}, std::memory_order_release);  // members 0: closed
  g_open.fetch_sub(1, std::memory_order_seq_cst);
  s->taken.store(false, std::memory_order_release);
}

int pause() {
  g_pause.fetch_add(1, std::memory_order_seq_cst);
  t_owners = Owners{};
  t_owners.pause = g_pause.load(std::memory_order_relaxed);
  // Wake every thread that may have served a seat, and give them a moment to end (libgomp
  // joins its threads); a thread busy elsewhere ends when it next looks for a seat.
  long deadline = now_ns() + 100L * 1000 * 1000;
  while (g_served_threads.load(std::memory_order_seq_cst) != 0 && now_ns() < deadline) {
    workers::wake(workers::count());
    wake_gang_threads();
    struct timespec ts = {0, 100 * 1000};
    nanosleep(&ts, nullptr);
  }
  return 0;
}

void run(unsigned n, MemberFn fn, void* ctx) {
  Gang g = start(n, fn, ctx);
  fn(ctx, 0);
  join(g);
}

void atfork_prepare() {}
void atfork_parent() {}

void atfork_child() {
  for (Slot& s : g_slots) {
    s.word.store(0, std::memory_order_relaxed);
    s.taken.store(false, std::memory_order_relaxed);
  }
  g_open.store(0, std::memory_order_relaxed);
  g_gang_sleepers.store(0, std::memory_order_relaxed);
  g_gang_starting.store(0, std::memory_order_relaxed);
  g_extra.store(0, std::memory_order_relaxed);
  g_served_threads.store(0, std::memory_order_relaxed);
  t_served = 0;         // the forking thread's record: it is the child's only thread
  t_owners = Owners{};  // the parent's threads are not the child's
  for (Server& v : g_server) {
    v.busy.store(false, std::memory_order_relaxed);
    v.alive.store(false, std::memory_order_relaxed);
  }
}

}  // namespace poolshim::core::team
