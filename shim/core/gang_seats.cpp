// Seats and their claims (gang_seats.h).
#include "core/gang_seats.h"

#include "base/assert.h"
#include "base/fork_hooks.h"
#include "base/resident_pages.h"
#include "core/futex.h"
#include "core/gang_family.h"
#include "core/servers.h"
#include "core/size.h"
#include "core/tls.h"
#include "core/wait.h"

namespace poolshim::core::gang {
namespace {

Slot g_slots[kSlots];
// One past the highest slot ever taken: crowded() reads the slots below it.
std::atomic<unsigned> g_slot_end{0};
static_assert(kSlots < (1u << kOpensShift),
              "the gangs word's fields must not carry into each other");
// The generation of each slot's gang this thread last served a seat of: a thread serves one
// seat per gang, as each member of a libgomp team is its own thread (threadprivate data).
POOLSHIM_FAST_TLS thread_local uint32_t t_gang_served[kSlots];

// The seats of a gang of n members (n <= kAffine) in the mask: bit i, seat i.
constexpr uint32_t team_seats(unsigned n) {
  return n >= kAffine ? ~uint32_t{0} : (uint32_t{1} << n) - 1;
}

// Slot s's held members run (hold: 0, or the seats kept to renumber by). Once: a gang's last claim
// and its caller's seated() may both release it as seated; the first does.
void release(Slot& s, uint32_t hold) {
  POOLSHIM_ASSERT(hold != kHold);
  uint32_t held = kHold;
  if (!s.hold.compare_exchange_strong(held, hold, std::memory_order_seq_cst)) {
    POOLSHIM_ASSERT(held == 0 && hold == 0);  // only as seated can a gang be released twice
    return;
  }
  if (s.hold_sleepers.load(std::memory_order_seq_cst) != 0) futex_wake(&s.hold, 1 << 30);
}

// The seat a member of slot s's gang runs as: its own, or, when the gang shrank, its rank among
// the seats kept. A held member waits for its release first.
unsigned seat_to_run(Slot& s, unsigned seat) {
  uint32_t hold = s.hold.load(std::memory_order_acquire);
  if (hold == 0) return seat;
  if (hold == kHold) {
    wait::await(s.hold, wait::SleepCount{s.hold_sleepers}, spin_ns(wait::kSpinNs),
                [](uint32_t h) { return h != kHold; });
    hold = s.hold.load(std::memory_order_acquire);
    if (hold == 0) return seat;
  }
  POOLSHIM_ASSERT(hold & 1);  // a kept mask: seat 0, the caller's, is always kept
  if (seat >= kAffine) {      // kept past the mask: claimed in order, before the retract
    POOLSHIM_ASSERT(seat - kAffine < s.kept_past_mask.load(std::memory_order_relaxed));
    return base::count_bits(hold) + (seat - kAffine);
  }
  POOLSHIM_ASSERT((hold >> seat) & 1);  // kept: it claimed before the retract
  return base::count_bits(hold & ((uint32_t{1} << seat) - 1));
}

void run_seat(Slot& s, MemberFn fn, void* ctx, unsigned seat) {
  t_gang_served[&s - g_slots] = gen_of(s.word.load(std::memory_order_relaxed));
  servers::note_served();
  const uint32_t id = servers::my_id();
  const uint32_t family = s.family.load(std::memory_order_relaxed);
  if (seat < kAffine) {
    s.claimer[seat].store(id, std::memory_order_relaxed);
    if (s.keeps.load(std::memory_order_relaxed)) servers::keep(id, family);
  }
  // A kept thread serves its family's gangs only, unless the gang could not start threads.
  POOLSHIM_ASSERT(servers::serves_family(servers::keeper(id), family) ||
                  s.any_family.load(std::memory_order_relaxed));
  servers::set_busy(id, true);
  const uint32_t outer = set_current_family(family);  // the gangs this member opens are its
  fn(ctx, seat_to_run(s, seat));
  set_current_family(outer);
  servers::set_busy(id, false);
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
  POOLSHIM_ASSERT(i != 0);  // seat 0 is the caller's, claimed from the start
  // The last seat of a held gang of up to kAffine: no retract can succeed now, so its members run
  // as seated (past kAffine the caller's seated() releases them).
  if (((m | (uint64_t{1} << i)) & kAllSeats) == kAllSeats &&
      s.hold.load(std::memory_order_relaxed) == kHold &&
      members_of(s.word.load(std::memory_order_relaxed)) <= kAffine)
    release(s, 0);
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
      POOLSHIM_ASSERT(seat_of(w) >= kAffine);  // the seats below are claimed in the mask
      run_seat(s, fn, ctx, seat_of(w));
      return true;
    }
  }
  return false;
}

// Where one look over the slots found a seat for this thread.
struct Pick {
  Slot* slot = nullptr;  // the first gang with a seat open to this thread
  uint64_t mask = 0;
  unsigned seat = kAffine;  // kAffine: a seat from kAffine on
};

// One look over the open gangs: claims and runs a seat preferred for `id` (served), or says
// where the first seat open to it is (pick), or that a claim was lost (look again).
enum class Look { served, lost, pick, none };
Look look_once(uint32_t id, Pick* pick) {
  const uint32_t kept = servers::keeper(id);
  for (Slot& s : g_slots) {
    uint64_t w = s.word.load(std::memory_order_acquire);
    if (members_of(w) == 0 || t_gang_served[&s - g_slots] == gen_of(w)) continue;
    if (!servers::serves_family(kept, s.family.load(std::memory_order_relaxed)) &&
        !s.any_family.load(std::memory_order_relaxed))
      continue;  // another family's gang (written before the word this acquire read)
    uint64_t m = s.mask.load(std::memory_order_acquire);
    if (gen_of(m) == gen_of(w) && (m & kAllSeats) != kAllSeats) {
      bool mine;
      unsigned i = pick_seat(s, m, id, &mine);
      if (mine) return claim_affine(s, m, i) ? Look::served : Look::lost;
      if (i < kAffine && pick->slot == nullptr) *pick = Pick{&s, m, i};
    }
    if (pick->slot == nullptr && seat_of(w) < members_of(w)) *pick = Pick{&s, 0, kAffine};
  }
  return pick->slot != nullptr ? Look::pick : Look::none;
}

}  // namespace

OnLine<uint64_t> g_gangs{0};

bool crowded() {
  // The members of every open gang, counted or not (each slot's word holds its gang's): a sum of
  // the few slots in use, no shared counter written at every open and close.
  const size_t threads = budget();
  const unsigned end = g_slot_end.load(std::memory_order_relaxed);
  size_t members = 0;
  for (unsigned i = 0; i < end; ++i)
    if ((members += members_of(g_slots[i].word.load(std::memory_order_relaxed))) > threads)
      return true;
  return false;
}

long spin_ns(long spin) { return crowded() && spin > kCrowdedSpinNs ? kCrowdedSpinNs : spin; }

bool serve_any() {
  if (!any_open()) return false;
  const uint32_t id = servers::my_id();
  for (int retry = 0; retry < 64; ++retry) {
    Pick pick;
    const Look look = look_once(id, &pick);
    if (look == Look::served) return true;
    if (look == Look::lost) continue;
    if (look == Look::none) return false;
    if (pick.seat == kAffine ? serve_overflow(*pick.slot)
                             : claim_affine(*pick.slot, pick.mask, pick.seat))
      return true;
  }
  return false;
}

Slot* take_slot() {
  for (Slot& s : g_slots) {
    bool expected = false;
    if (!s.taken.load(std::memory_order_relaxed) &&
        s.taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
      // crowded() reads the slots below g_slot_end: raised the first time a slot this high is
      // taken, so rarely written.
      const unsigned end = static_cast<unsigned>(&s - g_slots) + 1;
      unsigned seen = g_slot_end.load(std::memory_order_relaxed);
      while (seen < end && !g_slot_end.compare_exchange_weak(seen, end, std::memory_order_relaxed))
        continue;  // seen was reloaded
      return &s;
    }
  }
  return nullptr;
}

void open_slot(Slot& s, unsigned n, MemberFn fn, void* ctx, const Servers& who, uint32_t assigned,
               bool may_hold) {
  POOLSHIM_ASSERT(s.taken.load(std::memory_order_relaxed) && n >= 2 && n <= kMaxMembers);
  const uint32_t gen = next_gen(s);
  const unsigned affine = n < kAffine ? n : kAffine;
  // Only seats of the team, other than the caller's, go to docked threads.
  POOLSHIM_ASSERT((assigned & 1) == 0 && (affine == kAffine || (assigned >> affine) == 0));
  for (unsigned i = 1; i < affine; ++i) s.pref[i].store(who.pref[i], std::memory_order_relaxed);
  // Seat 0 (the caller) and the seats past the team are claimed from the start.
  uint64_t claimed = ~team_seats(affine) | 1 | assigned;
  s.open_all.store(!who.prefs, std::memory_order_relaxed);
  s.family.store(who.family, std::memory_order_relaxed);
  s.keeps.store(who.keeps && who.family != 0, std::memory_order_relaxed);
  s.any_family.store(false, std::memory_order_relaxed);
  s.fn.store(fn, std::memory_order_relaxed);
  s.ctx.store(ctx, std::memory_order_relaxed);
  s.done.store(0, std::memory_order_relaxed);
  // A seat left for others to claim: a thread may have to be started for it.
  s.counted = base::count_bits(assigned) != n - 1;
  const bool held = may_hold && s.counted;
  s.hold.store(held ? kHold : 0, std::memory_order_relaxed);
  s.mask.store((uint64_t{gen} << 32) | claimed, std::memory_order_relaxed);
  s.word.store(pack(gen, n, n > kAffine ? kAffine : n), std::memory_order_release);
  // seq_cst: against an idle worker about to sleep (workers.cpp, sleep_idle), which counts
  // itself a sleeper, then reads the opens; gang.cpp's start() then reads the sleepers.
  // A gang whose every seat went to a docked thread has nothing for others to find (g_gangs).
  if (s.counted) g_gangs.fetch_add(1 + (uint64_t{1} << kOpensShift), std::memory_order_seq_cst);
}

void close_slot(Slot& s, unsigned members) {
  uint64_t w = s.word.load(std::memory_order_relaxed);
  POOLSHIM_ASSERT(members_of(w) != 0 && unclaimed(s, members_of(w)) == 0);
  POOLSHIM_ASSERT(s.done.load(std::memory_order_relaxed) == members - 1);
  s.word.store(w & ~uint64_t{0xffffffff}, std::memory_order_release);  // members 0: closed
  if (s.counted) {
    const uint64_t before = g_gangs.fetch_sub(1, std::memory_order_seq_cst);
    POOLSHIM_ASSERT((before & 0xffff) != 0);  // every counted gang counted itself at its open
  }
  s.taken.store(false, std::memory_order_release);
}

uint32_t retract_seats(Slot& s, unsigned n) {
  POOLSHIM_ASSERT(s.taken.load(std::memory_order_relaxed) && n >= 2);
  const uint32_t team = team_seats(n);
  const bool held = s.hold.load(std::memory_order_relaxed) == kHold;
  // Past kAffine the seats are in two words, taken back one after the other: only members that
  // wait for the end of both (held) can be renumbered by them.
  if (n > kAffine && !held) return 0;
  // One compare-exchange claims every seat left in the mask: a thread's claim fails from here on.
  uint64_t m = s.mask.load(std::memory_order_acquire);
  do {
    if (!held && (static_cast<uint32_t>(m) & team) != 1) return 0;  // a member runs as seated
  } while (!s.mask.compare_exchange_weak(m, m | kAllSeats, std::memory_order_acq_rel,
                                         std::memory_order_acquire));
  const uint32_t kept = static_cast<uint32_t>(m) & team;
  POOLSHIM_ASSERT(kept & 1);  // the caller's seat, claimed from the start
  unsigned past = 0;          // seats kept from kAffine on
  if (n > kAffine) {
    // ... then the seats past it, claimed in order: those claimed by now are kept.
    uint64_t w = s.word.load(std::memory_order_acquire);
    while (!s.word.compare_exchange_weak(w, pack(gen_of(w), n, n), std::memory_order_acq_rel,
                                         std::memory_order_acquire))
      continue;  // w was reloaded
    POOLSHIM_ASSERT(members_of(w) == n && seat_of(w) >= kAffine && seat_of(w) <= n);
    past = seat_of(w) - kAffine;
  }
  // Every seat was claimed meanwhile: the gang runs whole (released by the last claim, or past
  // kAffine by the caller's seated()).
  if (kept == team && past == (n > kAffine ? n - kAffine : 0)) return 0;
  s.kept_past_mask.store(past, std::memory_order_relaxed);  // published by release_held
  if (kept == 1 && past == 0) close_slot(s, 1);             // nobody else runs in it
  return kept;
}

unsigned kept_members(const Slot& s, uint32_t kept) {
  return base::count_bits(kept) + s.kept_past_mask.load(std::memory_order_relaxed);
}

void release_held(Slot& s, uint32_t kept) {
  POOLSHIM_ASSERT(kept_members(s, kept) > 1);
  release(s, kept);
}

void seated(Slot& s) {
  POOLSHIM_ASSERT(unclaimed(s, members_of(s.word.load(std::memory_order_relaxed))) == 0);
  if (s.hold.load(std::memory_order_relaxed) == kHold) release(s, 0);
}

namespace {

// A dock word's seat: {generation:32, slot:16, seat:14, state:2}; state 2 (kDocked is 1).
constexpr uint64_t assignment(uint32_t gen, unsigned slot, unsigned seat) {
  return (uint64_t{gen} << 32) | (uint64_t{slot} << 16) | (uint64_t{seat} << 2) | 2;
}
static_assert(kSlots <= 0xffff && kAffine <= 0x3fff &&
                  (assignment(0, 0, 0) & 3) != servers::kDocked,
              "a dock word's fields");

}  // namespace

std::atomic<uint64_t>* dock() {
  const uint32_t id = servers::id_if_any();
  if (id == 0 || id >= servers::kTrackedIds) return nullptr;
  std::atomic<uint64_t>& d = servers::g_server[id].dock;
  POOLSHIM_ASSERT(d.load(std::memory_order_relaxed) == 0);  // undocked after every spin
  d.store(servers::kDocked, std::memory_order_release);
  return &d;
}

bool undock_and_serve(std::atomic<uint64_t>* dock) {
  if (dock == nullptr) return false;
  uint64_t d = servers::kDocked;
  if (dock->compare_exchange_strong(d, 0, std::memory_order_acq_rel)) return false;
  POOLSHIM_ASSERT((d & 3) == 2);  // only a start changes a docked word: to a seat
  dock->store(0, std::memory_order_relaxed);
  Slot& s = g_slots[(d >> 16) & 0xffff];
  const uint32_t gen = static_cast<uint32_t>(d >> 32);
  const unsigned seat = static_cast<unsigned>((d >> 2) & 0x3fff);
  // The start publishes the gang right after it assigned its seats; the gang cannot end before
  // this seat returns (its caller waits for every member), so this wait is short and ends.
  while (gen_of(s.word.load(std::memory_order_acquire)) != gen) cpu_relax();
  POOLSHIM_ASSERT(seat != 0 && seat < kAffine &&
                  ((s.mask.load(std::memory_order_relaxed) >> seat) & 1));
  run_seat(s, s.fn.load(std::memory_order_relaxed), s.ctx.load(std::memory_order_relaxed), seat);
  return true;
}

bool assign_docked(uint32_t id, const Slot& s, uint32_t gen, unsigned seat) {
  return servers::assign(id, assignment(gen, static_cast<unsigned>(&s - g_slots), seat));
}

bool preferred_busy(const Slot& s, unsigned affine) {
  uint64_t m = s.mask.load(std::memory_order_relaxed);
  for (unsigned i = 1; i < affine; ++i) {
    if ((m >> i) & 1) continue;
    if (!servers::busy(s.pref[i].load(std::memory_order_relaxed))) continue;
    // A thread claims its seat before it marks itself busy (run_seat; the mark is a release, the
    // read an acquire): the seat still unclaimed after the mark waits for a thread gone elsewhere.
    if (((s.mask.load(std::memory_order_acquire) >> i) & 1) == 0) return true;
  }
  return false;
}

void seats_atfork_child() {
  // Past the slots ever taken, only the fields on pages the child has (base/resident_pages.h): a
  // slot may have been taken while the fork copied the pages, after g_slot_end's.
  const unsigned end = g_slot_end.load(std::memory_order_relaxed);
  const base::ResidentPages pages(g_slots, sizeof g_slots);
  for (unsigned i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (i < end || pages.may_hold(&s.word)) base::reset_if_set(s.word, uint64_t{0});
    if (i < end || pages.may_hold(&s.taken)) base::reset_if_set(s.taken, false);
  }
  base::reset_if_set(g_gangs, 0);
}

}  // namespace poolshim::core::gang
