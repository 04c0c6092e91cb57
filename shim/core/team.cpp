// Gangs (team.h).
//
// Seats: a fixed table of gang slots in static storage, so a thread that read a slot never
// touches freed memory. A slot's word packs {generation:32, members:16, next seat:16}; a seat
// is claimed by a compare-exchange that keeps the generation, so a claim can only succeed on the
// gang that was read. The caller writes fn and ctx (relaxed) before it publishes the word
// (release); a claimer reads them after its acquire load and uses them only if its claim
// succeeds (acq_rel). The slot is reused only after its caller saw every seat claimed and every
// member done, which happens after each claimer's reads.
//
// Who waits: the caller, for its members (spinning, then on the done counter's futex). Pool
// workers are woken through workers::wake(); gang threads sleep on g_gang_epoch.
#include "core/team.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "core/futex.h"
#include "core/pool.h"
#include "core/size.h"
#include "core/workers.h"
#include "diag/log.h"

namespace poolshim::core::team {
namespace {

constexpr unsigned kSlots = 32;

struct Slot {
  // {generation:32, members:16, next seat:16}; members == 0: the slot is closed. Written by the
  // caller (open, close: release) and by claimers (next seat: acq_rel CAS).
  std::atomic<uint64_t> word{0};
  std::atomic<MemberFn> fn{nullptr};  // written by the caller before it opens the slot
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
std::atomic<size_t> g_extra{0};  // gang threads started (workers beyond the budget)

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

// Claims and runs one seat of slot s; true if it ran one.
bool serve_slot(Slot& s) {
  uint64_t w = s.word.load(std::memory_order_acquire);
  while (members_of(w) != 0 && seat_of(w) < members_of(w)) {
    MemberFn fn = s.fn.load(std::memory_order_relaxed);
    void* ctx = s.ctx.load(std::memory_order_relaxed);
    if (s.word.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel,
                                     std::memory_order_acquire)) {
      fn(ctx, seat_of(w));
      s.done.fetch_add(1, std::memory_order_seq_cst);
      if (s.caller_asleep.load(std::memory_order_seq_cst)) futex_wake(&s.done, 1);
      return true;
    }
  }
  return false;
}

bool serve_any() {
  if (g_open.load(std::memory_order_acquire) == 0) return false;
  for (Slot& s : g_slots)
    if (serve_slot(s)) return true;
  return false;
}

// A gang thread: serve seats; spin like a pool worker, then sleep on the gang epoch.
void* gang_thread_main(void*) {
  for (;;) {
    uint32_t seen = g_gang_epoch.load(std::memory_order_acquire);
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
  int err = pthread_create(&t, &attr, gang_thread_main, nullptr);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (err != 0) return false;
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
void fill_with_gang_threads(Slot& s, unsigned members) {
  wake_gang_threads();
  long deadline = now_ns() + 20 * 1000;
  while (now_ns() < deadline && seat_of(s.word.load(std::memory_order_acquire)) < members)
    cpu_relax();
  unsigned open = members - seat_of(s.word.load(std::memory_order_acquire));
  for (unsigned i = 0; i < open; ++i)
    if (!start_gang_thread()) break;
}

}  // namespace

bool serve_one() { return serve_any(); }

size_t extra_threads() { return g_extra.load(std::memory_order_relaxed); }

Gang start(unsigned n, MemberFn fn, void* ctx) {
  Gang g;
  if (n <= 1) return g;
  if (n > kMaxMembers) n = kMaxMembers;
  Slot* s;
  // More concurrent gangs than slots is rare; a slot frees as soon as its gang's members
  // returned, and gangs never wait on each other, so this wait ends.
  while ((s = take_slot()) == nullptr) cpu_relax();
  uint32_t gen = static_cast<uint32_t>(s->word.load(std::memory_order_relaxed) >> 32) + 1;
  s->fn.store(fn, std::memory_order_relaxed);
  s->ctx.store(ctx, std::memory_order_relaxed);
  s->done.store(0, std::memory_order_relaxed);
  s->word.store(pack(gen, n, 1), std::memory_order_release);
  g_open.fetch_add(1, std::memory_order_seq_cst);
  // Pool workers only up to the pool's size (workers.h: budget - 1); gang threads do the rest.
  size_t pool_workers = pool_size() > 1 ? pool_size() - 1 : 0;
  if (pool_workers > 0) {
    workers::ensure(n - 1 < pool_workers ? n - 1 : pool_workers);
    workers::wake(n - 1);
  }
  if (g_extra.load(std::memory_order_relaxed) != 0) wake_gang_threads();
  // Give idle workers a moment to take the seats (they spin on the pool's epoch, or wake from
  // its futex), then start gang threads for what is left.
  long deadline = now_ns() + 200 * 1000;
  while (seat_of(s->word.load(std::memory_order_acquire)) < n) {
    if (now_ns() > deadline) {
      fill_with_gang_threads(*s, n);
      deadline = now_ns() + 1000 * 1000 * 1000L;
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
  uint64_t w = s->word.load(std::memory_order_relaxed);
  s->word.store(w & ~uint64_t{0xffffffff}, std::memory_order_release);  // members 0: closed
  g_open.fetch_sub(1, std::memory_order_seq_cst);
  s->taken.store(false, std::memory_order_release);
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
  g_extra.store(0, std::memory_order_relaxed);
}

}  // namespace poolshim::core::team
