// OpenMP thread affinity on the shim's threads: OMP_PROC_BIND, OMP_PLACES and the proc_bind
// clause, placed as the OpenMP specification says (close, spread, primary; libgomp's choices
// where it leaves room), over libgomp's own place list (omp_get_num_places and kin: libgomp
// built it from the process's mask before it pinned the initial thread to place 0).
//
// A member binds its thread to its place when it starts (core::placement::bind: nothing when the
// thread is there already); a pool worker gets its own mask back when it next joins a pthreadpool
// call. The budget and the shim's threads take the union of the places as the process's CPUs
// (budget::process_cpus), not place 0, where libgomp pinned the initial thread.
#pragma once
#include <sched.h>

namespace poolshim::abi::openmp::runtime {
#pragma GCC visibility push(hidden)

// omp_proc_bind_t's values.
enum Bind : int {
  kBindFalse = 0,
  kBindTrue = 1,
  kBindPrimary = 2,
  kBindClose = 3,
  kBindSpread = 4
};

// A thread's place and place partition (libgomp: thr->place - 1 and ts.place_partition_*);
// place -1: not placed yet.
struct PlaceState {
  int place = -1;
  unsigned off = 0;
  unsigned len = 0;
};

// How a team's members are placed: the policy (kBindFalse: they are not) and the primary's place
// state when the team starts.
struct TeamPlaces {
  int bind = kBindFalse;
  PlaceState primary;
};

// Places in libgomp's list; 0 without one (no binding, as with libgomp).
unsigned num_places();
// The calling thread's place state, placed on place 0 (and bound there) if it had none, as
// libgomp places a thread that asks or starts a team. `state` is the thread's.
void ensure_placed(PlaceState* state);
// The placement of a team of n started by a thread whose state is `caller`, with bind-var
// `bind_var` and the proc_bind clause `clause` (0: none; ignored when bind_var is false).
TeamPlaces team_places(PlaceState* caller, int bind_var, unsigned clause, unsigned n);
// Member m's place and partition in that team; members other than 0 bind their thread there.
PlaceState member_place(const TeamPlaces& tp, unsigned n, unsigned m);

// The CPUs of place `place` of libgomp's list; nullptr when it is not one (-1: not placed).
const cpu_set_t* place_cpus(int place);

// OMP_DISPLAY_AFFINITY (affinity_display.cpp): the calling member shows its affinity line when
// what the format shows changed since its thread last showed one.
void display_affinity_if_changed();

#pragma GCC visibility pop
}  // namespace poolshim::abi::openmp::runtime
