// Gangs: n threads that run one body at the same time, for runtimes whose work needs all its
// threads at once (an OpenMP team's barriers). The pool's run() promises no such thing: its
// items may run one after another on one thread.
//
// A gang's members are, in order of preference: the caller (member 0); idle pool workers, which
// look for an open seat before looking for a pool call (one check at the top of worker_main,
// core/workers.cpp), so the threads that serve pthreadpool and ExecuTorch calls serve OpenMP
// teams too, with the pool's one wait policy (core/wait.h); and when no worker took a seat within
// a short wait (all busy, or the budget is smaller than the team), gang threads
// (gang_threads.h), started as libgomp would start them and kept for later gangs: counted
// (extra_threads()) and logged once. A gang therefore never waits for another caller's work
// (beyond a bounded wait for a seat's preferred thread, below), and never deadlocks on it.
//
// With a preference window (Policy), member i of a caller's gang runs on the thread that ran
// member i of its previous gang when that thread is free (pool worker or gang thread), as
// members of a libgomp team keep their threads from region to region: OpenMP threadprivate data
// persists per thread number. The window is the runtime's policy (abi/openmp), not core's. A
// caller may also keep the threads that served it (Policy::keep_threads, gang_family.h), so that
// another caller's gangs do not take them meanwhile.
#pragma once
#include <cstddef>
#include <cstdint>
#include "base/fork_hooks.h"

namespace poolshim::core::gang {

using MemberFn = void (*)(void* ctx, unsigned member);

// What the runtime asks of its gangs.
struct Policy {
  // How long a seat waits for the thread that served it in the caller's previous gang (a thread
  // that is idle, spinning or asleep; every pool worker is woken) before it opens to any thread;
  // a seat whose thread went busy with other work opens at once. 0: no preference, every seat
  // open to any thread from the start.
  long prefer_ns = 0;
  // Whether the threads that serve the caller's seats below kAffine are kept for it while it
  // lives (or until a pause): they then serve only its gangs and the gangs its members open.
  // libgomp's initial threads each have a pool of their own; a gang that cannot start the threads
  // it needs still takes kept ones, so keeping never makes a gang wait.
  bool keep_threads = false;
  // Called on the caller, before member 0 runs, with a smaller team size m (1 <= m < n) when
  // threads for some seats could not be started (pthread_create failed: RLIMIT_NPROC, RLIMIT_AS)
  // and the gang took those seats back: ctx must then describe a gang of m, whose members are
  // renumbered 0..m-1 in seat order. A held gang (gang_seats.h, "Holding": one whose seats the
  // threads alive at its start could not fill) keeps the members that came; any other is taken
  // back only when none came (m = 1; up to 32 members), and else waits for its threads, as does
  // every gang when this is nullptr.
  void (*shrink)(void* ctx, unsigned members) = nullptr;
};

// Runs fn(ctx, m) for m in [0, n) on n threads at once, the caller running m = 0; returns when
// every member returned. n <= kMaxMembers; n <= 1 runs fn(ctx, 0) inline.
void run(unsigned n, MemberFn fn, void* ctx, const Policy& policy);
constexpr unsigned kMaxMembers = 4096;

// The same in two steps, for a caller that runs member 0's part itself in between
// (GOMP_parallel_start / GOMP_parallel_end): start() returns once members 1..n-1 are running;
// join() waits for them.
struct Gang {
  void* slot = nullptr;  // nullptr: nothing to join (n <= 1)
  unsigned n = 1;
  uint32_t outer_family = 0;  // the caller's family before start() (gang_family.h)
  bool shrunk = false;        // Policy::shrink ran: its seats are not the caller's preferences
};
Gang start(unsigned n, MemberFn fn, void* ctx, const Policy& policy);
void join(const Gang& g);

// For an idle pool worker (workers.cpp): runs one open seat of a waiting gang; true if it did.
bool serve_one();

// For a pool worker (join.cpp) that joins (true) or leaves (false) a pool call's share: a gang
// seat kept for this thread (its preference) does not wait for it meanwhile, and a gang counts it
// busy. Joining, it gets its own CPU mask back if a team's place bound it (placement::unbind).
void note_pool_call(bool in_call);

// For a pool worker (workers.cpp) that starts (true) or ends (false): a gang counts the workers
// alive and not busy as coming for its seats before it starts threads beyond the budget.
void note_worker(bool alive);

// Ends the threads that served a seat (pool workers and gang threads; the pool starts others when
// needed), so the next gangs' members start with fresh thread-local data, as libgomp's threads do
// after omp_pause_resource; callers forget their preferences. Waits up to wait_ns for them (a
// thread busy elsewhere ends when it next looks for a seat); returns 0.
int pause(long wait_ns);

// Whether the gangs open now have more members than the budget has threads. A thread that waits
// (a caller for its members, a member at a barrier, an idle pool worker or gang thread) then
// spins at most kCrowdedSpinNs before it sleeps, as libgomp throttles its spinning when it
// manages more threads than CPUs: a spinning thread takes the CPU the thread it waits for needs.
// 0 measured best against 2 and 10 us (docs/openmp.md, "Initial threads at once and crowded
// waits").
bool crowded();
constexpr long kCrowdedSpinNs = 0;
// A spin of spin_ns, shortened to kCrowdedSpinNs while crowded().
long spin_ns(long spin_ns);

// Gang threads started because no pool worker was free (beyond the budget), since start.
size_t extra_threads();

// fork(): the child has none of the parent's gangs or gang threads (lifecycle/fork.cpp's table).
// No lock to take: prepare only reads what the child hook will (base::map_for_children).
POOLSHIM_FORK_HOOK void atfork_prepare();
POOLSHIM_FORK_HOOK void atfork_parent();
POOLSHIM_FORK_HOOK void atfork_child();

}  // namespace poolshim::core::gang
