// Dynamic loops whose chunks may go to the members in any order (the nonmonotonic modifier,
// OpenMP 5.0's default for `schedule(dynamic)` without `ordered`), by stealing, as LLVM libomp's
// static_steal schedule does: the loop's chunks are numbered 0..last, each member starts with a
// static block of them, claims its own from the front, and when its block is empty takes the back
// half of another member's. A claim on one's own block touches a line no other member writes
// until it steals, where a shared counter (dynamic_next's fetch_add, libgomp's only schedule)
// moves one line between the CPUs on every claim.
//
// A member's block is one 64-bit word, [lo, hi) packed as lo | hi << 32, so that the owner's claim
// (lo + 1) and a thief's (hi - k) are each one read-modify-write of the same word and can never
// both take a chunk. Every chunk is in exactly one block until it is claimed, or in the hands of
// the thief that is moving it to its own block (and runs it), so a member that finds every block
// empty may leave the loop: nothing is lost. No ABA: a block's value with lo < hi names the
// unclaimed chunk lo, which, once claimed, never returns to any block. Only chunk numbers pass
// through these words (the loop's data is the body's, ordered by the region's start), so every
// access is relaxed.
//
// The loop's last chunk is in no block: the compilers decide lastprivate (GCC: the iteration
// variable reached the end; clang: __kmpc_dispatch_next's last flag) by the last chunk a thread
// ran, so the member that runs the last chunk must run no other after it. It is claimed only by a
// member that found every block empty, which then leaves the loop (its block holds kFinished):
// chunks still moving between blocks are their thief's to run. (LLVM libomp 14's static_steal
// lets a thread steal after the last chunk, and loses the lastprivate value now and then.)
#include <stdlib.h>

#include <atomic>
#include <new>

#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"
#include "base/assert.h"

namespace poolshim::abi::openmp::runtime {

// alignas(64): a block's owner claims on it all the time; no other member's block shares its line.
struct alignas(64) StealRange {
  std::atomic<uint64_t> range{0};
};

namespace {

uint64_t pack(uint32_t lo, uint32_t hi) { return lo | static_cast<uint64_t>(hi) << 32; }
uint32_t lo_of(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t hi_of(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

// The block of a member that ran the last chunk: empty to thieves (lo > hi), and its owner claims
// nothing more.
constexpr uint64_t kFinished = 0xffffffffu;

// The owner's claim: the front chunk of its own block. The load first keeps an empty block's lo
// from growing (a fetch_add on it would still add): lo exceeds hi by at most the one claim that
// lost the block's last chunk to a thief.
bool claim_own(StealRange& mine, uint32_t* chunk) {
  uint64_t v = mine.range.load(std::memory_order_relaxed);
  if (lo_of(v) >= hi_of(v)) return false;
  v = mine.range.fetch_add(1, std::memory_order_relaxed);
  if (lo_of(v) >= hi_of(v)) return false;  // a thief took the rest meanwhile
  *chunk = lo_of(v);
  return true;
}

// A thief's claim: the back half (rounded up) of the first non-empty block after its own; it
// runs the first chunk of what it took and keeps the rest as its own block (empty until now, so
// no other member writes it).
bool steal(WorkShare* w, unsigned member, uint32_t* chunk) {
  const unsigned n = w->steal_members;
  for (unsigned j = 1; j < n; ++j) {
    StealRange& victim = w->steal[(member + j) % n];
    uint64_t v = victim.range.load(std::memory_order_relaxed);
    for (;;) {
      const uint32_t lo = lo_of(v), hi = hi_of(v);
      if (lo >= hi) break;
      const uint32_t take = (hi - lo + 1) / 2;
      if (victim.range.compare_exchange_weak(v, pack(lo, hi - take), std::memory_order_relaxed)) {
        *chunk = hi - take;
        if (take > 1)
          w->steal[member].range.store(pack(hi - take + 1, hi), std::memory_order_relaxed);
        return true;
      }
    }
  }
  return false;
}

}  // namespace

bool steal_init(WorkShare* w, unsigned long long chunks, unsigned members) {
  // Every block's bounds and an empty block's lo + 1 must fit 32 bits; one member needs no blocks.
  if (members < 2 || chunks == 0 || chunks > 0xfffffff0ull) return false;
  // The members' blocks, then the last chunk's word: 1 while nobody has claimed it.
  void* p = aligned_alloc(alignof(StealRange), sizeof(StealRange) * (members + 1));
  if (p == nullptr) return false;  // the shared counter needs no memory
  w->steal = static_cast<StealRange*>(p);
  w->steal_members = members;
  w->steal_last = static_cast<uint32_t>(chunks - 1);
  // Member i's block as a static schedule without a chunk splits chunks 0..last - 1: the first
  // (chunks - 1) % members blocks one chunk longer.
  const uint32_t blocked = w->steal_last;
  const uint32_t q = blocked / members, r = blocked % members;
  uint32_t lo = 0;
  for (unsigned i = 0; i < members; ++i) {
    const uint32_t hi = lo + q + (i < r ? 1 : 0);
    new (&w->steal[i]) StealRange;
    w->steal[i].range.store(pack(lo, hi), std::memory_order_relaxed);
    lo = hi;
  }
  POOLSHIM_ASSERT(lo == blocked);  // the blocks cover every chunk but the last, once
  new (&w->steal[members]) StealRange;
  w->steal[members].range.store(1, std::memory_order_relaxed);
  return true;
}

bool steal_claim(WorkShare* w, unsigned member, uint32_t* chunk) {
  POOLSHIM_ASSERT(w->steal != nullptr && member < w->steal_members);
  StealRange& mine = w->steal[member];
  if (mine.range.load(std::memory_order_relaxed) == kFinished) return false;  // ran the last
  if (claim_own(mine, chunk) || steal(w, member, chunk)) {
    POOLSHIM_ASSERT(*chunk < w->steal_last);
    return true;
  }
  if (w->steal[w->steal_members].range.exchange(0, std::memory_order_relaxed) == 0) return false;
  mine.range.store(kFinished, std::memory_order_relaxed);  // empty: only this member writes it
  *chunk = w->steal_last;
  return true;
}

void steal_free(WorkShare* w) {
  free(w->steal);  // StealRange is trivially destructible
  w->steal = nullptr;
  w->steal_members = 0;
}

}  // namespace poolshim::abi::openmp::runtime
