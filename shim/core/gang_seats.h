// The seats of open gangs (gang.h) and their claims.
//
// A fixed table of gang slots in static storage, so a thread that read a slot never touches freed
// memory. Seats below kAffine are claimed in a mask word {generation:32, claimed seats:32} (bit i:
// seat i; seat 0 and the seats past the team are set from the start), the rest in order through
// the slot's word {generation:32, members:16, next seat:16}; both claims are compare-exchanges
// that keep the generation, so a claim can only succeed on the gang that was read. The caller
// writes fn, ctx, the preferences and the mask before it publishes the word (release); a claimer
// reads them after its acquire load and uses them only if its claim succeeds (acq_rel). The slot
// is reused only after its caller saw every seat claimed and every member done, which happens
// after each claimer's reads.
//
// Preferences (gang.h, Policy): a seat with a preferred server id is only for that thread until
// the slot's open_all is raised; a server looks for a seat preferred for it in every open gang
// before it takes any other, and serves one seat per gang.
//
// Holding (gang.h, Policy::shrink): a gang that may shrink, whose seats the threads alive cannot
// fill (gang.cpp's start decides: a thread must be started for it, and that may fail), and that
// left a seat for others to claim is opened held: its members wait (Slot::hold) before they run,
// until every seat is claimed (seated(); in a gang of up to kAffine the claim that takes the last
// seat releases them, so a gang of 2 never waits), or until its caller, short of threads that
// could not be started, takes the unclaimed seats back (retract_seats) and releases them
// renumbered. So no member reads the team's size before it is final. Past kAffine only the caller
// releases: there a claim's view of "every seat" spans two words that a retract takes in turn.
//
// Families (gang_family.h): a thread kept for a family serves only gangs of that family, unless
// the slot's any_family is raised (the caller could not start the threads it needed: a gang
// never waits for want of threads). A free thread that takes a seat below kAffine of a keeping
// gang is kept for the gang's family from then on.
#pragma once
#include <atomic>
#include <cstdint>

#include "base/bits.h"
#include "core/cache_line.h"
#include "core/gang.h"
#include "base/fork_hooks.h"

namespace poolshim::core::gang {
#pragma GCC visibility push(hidden)

constexpr unsigned kSlots = 32;
constexpr unsigned kAffine = 32;  // seats with a preferred thread (the mask's bits)
constexpr uint64_t kAllSeats = 0xffffffffu;

struct Slot {
  // {generation:32, members:16, next seat:16}; members == 0: the slot is closed. Written by the
  // caller (open, close: release) and by claimers (next seat, from kAffine on: acq_rel CAS).
  std::atomic<uint64_t> word{0};
  // {generation:32, claimed seats below kAffine:32}: written by the caller before it opens the
  // slot, then by claimers (acq_rel CAS).
  std::atomic<uint64_t> mask{0};
  // Holding: kHold while the held gang's members wait; 0 when they run as seated; else the seats
  // below kAffine kept (bit i: seat i) when the gang shrank, by which each renumbers itself.
  // Written by the caller before it opens the slot, then once by the claim of the last seat, by
  // seated() or by release_held (a compare-exchange from kHold, seq_cst); futex word of the
  // waiting members, counted in hold_sleepers.
  std::atomic<uint32_t> hold{0};
  std::atomic<uint32_t> hold_sleepers{0};
  // The seats from kAffine on that a shrunk gang kept (they were claimed in order: kAffine up to
  // kAffine + this), written by retract_seats before the release that the members acquire.
  std::atomic<uint32_t> kept_past_mask{0};
  std::atomic<uint32_t> pref[kAffine]{};     // the seat's preferred server id (0: none); caller
  std::atomic<uint32_t> claimer[kAffine]{};  // who claimed it: written before the member's done
  std::atomic<bool> open_all{false};         // preferences lifted (the wait ran out)
  std::atomic<uint32_t> family{0};           // the gang's family (0: none); caller, before open
  std::atomic<bool> keeps{false};            // its seats' threads are kept for the family
  std::atomic<bool> any_family{false};       // kept threads of other families may serve it
  std::atomic<MemberFn> fn{nullptr};         // written by the caller before it opens the slot
  std::atomic<void*> ctx{nullptr};
  std::atomic<uint32_t> done{0};           // members (other than 0) that returned; futex word
  std::atomic<uint32_t> caller_asleep{0};  // the caller sleeps on done: members wake it
  std::atomic<bool> taken{false};          // owned by a caller between start() and join()
  // Whether the open is counted in g_gangs: not when every seat went to a docked thread, as no
  // thread has to find such a gang. Written and read by the slot's caller only.
  bool counted = false;
};
// Slot::hold: the members wait. Even, so never a kept mask: seat 0, the caller's, is always kept.
constexpr uint32_t kHold = 2;

inline uint32_t gen_of(uint64_t w) { return static_cast<uint32_t>(w >> 32); }
constexpr uint64_t pack(uint32_t gen, unsigned members, unsigned seat) {
  return (uint64_t{gen} << 32) | (uint64_t{members & 0xffff} << 16) | (seat & 0xffff);
}
inline unsigned members_of(uint64_t w) { return static_cast<unsigned>((w >> 16) & 0xffff); }
inline unsigned seat_of(uint64_t w) { return static_cast<unsigned>(w & 0xffff); }

// A free slot, owned by the calling caller until release_slot(); nullptr when all are taken.
Slot* take_slot();
// Who may serve a gang: its seats' preferred ids (pref[1..affine); prefs: any of them is not 0)
// and its family (gang_family.h), kept by its seats' threads when keeps.
struct Servers {
  const uint32_t* pref;
  bool prefs;
  uint32_t family;
  bool keeps;
};
// The generation slot s's next gang will have (its caller owns the slot).
inline uint32_t next_gen(const Slot& s) {
  return gen_of(s.word.load(std::memory_order_relaxed)) + 1;
}
// Opens slot s's gang of n members: fn, ctx, who may serve it, the seats below kAffine given to
// docked threads already (assigned: bit i, seat i), then the word (release). It is held when
// may_hold and a seat is left for others to claim.
void open_slot(Slot& s, unsigned n, MemberFn fn, void* ctx, const Servers& who, uint32_t assigned,
               bool may_hold);

// Docking: a pool worker that spins idle (workers.cpp) is docked: a gang's start may give it a
// seat preferred for it (assign_docked) with one compare-exchange on the worker's own server line
// (servers.h, dock), and counts that seat claimed at once, as the worker cannot leave the dock
// without taking it: it undocks with a compare-exchange from kDocked, which fails once a seat is
// there. So the start does not wait for a docked thread's claim (one hand-off of a line fewer on
// the caller's path: docs/openmp.md, "A region's hand-offs"), and the worker learns of its seat
// on its own line instead of from the gangs' word and the slot's mask.
//
// Docks the calling pool worker (before it spins); returns its dock word, which it polls, or
// nullptr when it has no tracked id.
std::atomic<uint64_t>* dock();
// Undocks the calling pool worker after its spin; when a start gave it a seat meanwhile, runs the
// seat first and returns true.
bool undock_and_serve(std::atomic<uint64_t>* dock);
// Gives the seat `seat` of slot s's next gang (generation gen) to server `id` if it is docked.
bool assign_docked(uint32_t id, const Slot& s, uint32_t gen, unsigned seat);
// Closes the slot after every one of its gang's members returned (n, or what retract_seats kept),
// and frees it.
void close_slot(Slot& s, unsigned members);
// Takes back the seats of slot s's gang of n members that no thread has claimed (nor been
// given): a compare-exchange claims them all, so a thread's claim fails from then on (past
// kAffine, a second one takes the seats claimed in order). A held gang keeps the members that
// claimed a seat; any other gang only retracts when none did (its members have read the team's
// size), and only up to kAffine members. Returns the seats kept below kAffine (bit i: seat i;
// seat 0 always; kept_members counts those past it too), or 0 when it took nothing back (every
// seat was claimed meanwhile: a held gang's caller then calls seated(); or a seat of a gang not
// held was claimed). When no other seat is kept, nobody runs in the gang: the slot is closed and
// freed as close_slot does. Else the caller calls release_held with them once it has made its
// side of the gang their size.
uint32_t retract_seats(Slot& s, unsigned n);
// The members a gang that retract_seats shrank keeps (kept: what it returned).
unsigned kept_members(const Slot& s, uint32_t kept);
// Releases the held members of slot s's gang, renumbered by the seats kept (retract_seats).
void release_held(Slot& s, uint32_t kept);
// Every seat of slot s's gang is claimed: its members, if held, run as seated. Called by the
// caller once it saw no seat unclaimed.
void seated(Slot& s);

// Seats nobody has claimed yet.
inline unsigned unclaimed(const Slot& s, unsigned members) {
  uint32_t free = ~static_cast<uint32_t>(s.mask.load(std::memory_order_acquire));
  unsigned next = seat_of(s.word.load(std::memory_order_acquire));
  return base::count_bits(free) + (next < members ? members - next : 0);
}
// Whether an unclaimed seat waits for a thread that went busy since the gang opened (it joined a
// pool call or another gang): the gang then opens its seats to any thread at once.
bool preferred_busy(const Slot& s, unsigned affine);

// One seat of any open gang, a seat preferred for the calling thread first; true if it ran one.
bool serve_any();
// The gangs with seats to find that are open, and how many opened so far, in one word on a line
// of its own: {opens:48, open:16}. Such a gang's open and close are one read-modify-write each on
// it; idle pool workers poll the opens, and every idle worker's look reads the count
// (any_open()). A gang whose every seat went to a docked thread (Slot::counted) is in neither:
// idle workers poll this line, so each write to it waits for their copies to be invalidated, two
// such waits on every region's path (docs/openmp.md, "A region's gang off the idle workers'
// line"). The opens, at the top, wrap harmlessly; the count (<= kSlots) never carries into them.
extern OnLine<uint64_t> g_gangs;
constexpr unsigned kOpensShift = 16;

// Whether some gang is open.
inline bool any_open() { return (g_gangs.load(std::memory_order_acquire) & 0xffff) != 0; }
// How many gangs opened so far (wrapping; seq_cst). An idle pool worker (workers.cpp) reads it
// before it looks for a seat and polls it while it spins: a gang's start moves no wake epoch
// while no worker sleeps (one write fewer on the caller's path, one line fewer on the worker's).
// A worker about to sleep counts itself a sleeper, then reads it again: either it sees the gang,
// or the gang's start sees the sleeper and wakes it (workers::wake).
inline uint32_t gangs_opened() {
  return static_cast<uint32_t>(g_gangs.load(std::memory_order_seq_cst) >> kOpensShift);
}

// fork(): every slot closed and free.
POOLSHIM_FORK_HOOK void seats_atfork_child();

#pragma GCC visibility pop
}  // namespace poolshim::core::gang
