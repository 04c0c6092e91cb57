// Inside the native runtime's worksharing: what loop.cpp, loop_split.cpp, loop_start.cpp and
// doacross.cpp share beyond state.h.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "abi/openmp/runtime/state.h"

namespace poolshim::abi::openmp::runtime {

using ull = unsigned long long;

// GOMP_loop_start's `sched` (libgomp's enum gomp_schedule_type): 0 runtime, 1 static, 2 dynamic,
// 3 guided, 4 auto (from the compiler: runtime with the nonmonotonic modifier), and the
// monotonic flag bit. Resolved as libgomp's loop.c does: runtime and auto read run-sched-var
// (whose auto is static with no chunk); returns kStatic, kDynamic or kGuided (or kDynamicAnyOrder
// when given it), with *chunk (an explicit schedule keeps it, but dynamic and guided chunks are
// at least 1). T: long or ull. any_order: GOMP_loop_start's `sched` with a dynamic schedule
// without the monotonic bit (as GCC passes `schedule(dynamic)`) asking for kDynamicAnyOrder.
constexpr long kSchedMonotonic = 0x80000000L;
template <typename T>
int resolve_sched(long sched, T* chunk);
inline long any_order(long sched) { return sched == kDynamic ? long{kDynamicAnyOrder} : sched; }

// Enter the calling member's next construct as GOMP_loop_start and its kin do: task
// reductions through the ws_reductions_* interface when `reductions` is not null; with `mem`,
// the construct's zeroed block of *mem bytes, shared by the team, is stored in *mem (the first
// member allocates it while it initialises the construct). init(w, arg) as for ws_enter.
WorkShare* ws_begin(void (*init)(WorkShare*, void*), void* arg, uintptr_t* reductions, void** mem,
                    bool* first);

// A doacross loop's collapsed loops: ncounts iteration counts (the loop itself runs over
// 0..counts[0]; long and unsigned long long counts alike, both 64 bits here).
struct DoacrossSpec {
  unsigned ncounts;
  const unsigned long* counts;
};

// Loops (loop_split.cpp, one template for both iteration types). Long loops: set w up as
// libgomp's gomp_loop_init does (sched resolved); claimers: the size of the team that will run
// it, 0 for the calling member's own team.
void loop_init(WorkShare* w, int sched, long start, long end, long incr, long chunk, bool ordered,
               unsigned claimers = 0);
// Enter a long loop (sched resolved) with the extras above (dx: a doacross loop); takes the
// first chunk when istart is not null, else returns true.
bool loop_begin(int sched, long start, long end, long incr, long chunk, bool ordered,
                uintptr_t* reductions, void** mem, long* istart, long* iend,
                const DoacrossSpec* dx = nullptr);

// Unsigned long long loops (loop_split.cpp). up: the loop counts up (incr is then
// positive; down, incr is the two's complement of the step, as the compiler passes it).
bool loop_ull_begin(int sched, bool up, ull start, ull end, ull incr, ull chunk, bool ordered,
                    uintptr_t* reductions, void** mem, ull* istart, ull* iend,
                    const DoacrossSpec* dx = nullptr);
bool loop_ull_next(ull* istart, ull* iend);

// Ordered loops (loop.cpp): a member that takes a chunk records its logical iteration
// numbers [begin, end); before it takes the next one (or leaves), the turn passes on.
void ordered_took(long begin, long end);
void ordered_pass(WorkShare* w);

// Doacross (doacross.cpp): set up the dependence state of w, a loop over 0..counts[0]
// already initialised (schedule and chunk resolved), while the first member initialises it.
void doacross_init(WorkShare* w, const DoacrossSpec& dx, unsigned long chunk);

// Dynamic loops in any order (loop_steal.cpp). steal_init gives w's `members` members a block
// each of the loop's `chunks` chunks (numbered from 0); false (w unchanged) where stealing cannot
// serve: one member, no chunk, more chunks than a block's 32-bit bounds hold, no memory.
// steal_claim: the next chunk's number for `member`, false once every block is empty.
bool steal_init(WorkShare* w, unsigned long long chunks, unsigned members);
bool steal_claim(WorkShare* w, unsigned member, uint32_t* chunk);
void steal_free(WorkShare* w);

// Free what a construct owns beyond itself (mem block, doacross state); WorkShare's deleters
// and the reused construct of a thread outside any team call it.
void ws_free_extras(WorkShare* w);

// GOMP_parallel_*_start (parallel.cpp): a region whose caller runs member 0 after the
// call returns, until GOMP_parallel_end; preset as for run_region (may be nullptr).
void start_region(void (*fn)(void*), void* data, unsigned n, WorkShare* preset);

}  // namespace poolshim::abi::openmp::runtime
