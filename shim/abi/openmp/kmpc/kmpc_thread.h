// What the native __kmpc runtime keeps per thread, in one block reached through a pthread key,
// not thread_local: the shim's static TLS must stay within what glibc can give a library that is
// dlopen()ed rather than preloaded (its surplus is about 1.6 KiB for every such library at once,
// and the shim already takes most of what it may); one more variable made dlopen fail with
// "cannot allocate memory in static TLS block".
#pragma once
#include <cstdint>

namespace poolshim::abi::openmp::kmpc {

// A thread's dynamic loop in progress (__kmpc_dispatch_init .. the next() that returns 0).
// Between init and the last next() the thread may start a nested region as its master (a
// parallel inside the loop's body), whose loops use the same thread's state, so a region's
// start saves it and its end restores it (parallel.cpp).
struct DispatchState {
  bool active = false;      // between init and the next() that returns 0
  bool pending = false;     // the first chunk, from the work share's start, not yet handed out
  bool up = true;           // the iteration variable grows
  uint64_t is = 0, ie = 0;  // the pending chunk, [is, ie) in the biased unsigned domain
  uint64_t stride = 0;      // the increment, as an unsigned (negative: wrapped)
  uint64_t last = 0;        // the loop's last iteration, biased
};

struct SavedDispatch;  // parallel.cpp: the states saved by serialized regions

struct KmpcThread {
  int32_t gtid = -1;            // __kmpc_global_thread_num's answer, once given
  uint32_t pushed_threads = 0;  // __kmpc_push_num_threads, for the next fork
  // __kmpc_push_num_teams, for the next teams construct (0: not given).
  uint32_t pushed_teams = 0;
  uint32_t pushed_team_threads = 0;
  SavedDispatch* serialized = nullptr;
  int serialized_depth = 0;
  bool reduce_locked = false;  // __kmpc_reduce took the reduction's lock (method 1)
  DispatchState dispatch;
};

// This thread's block, made on its first use and freed when the thread ends. If it cannot be
// allocated, a shared block stands in (wrong only if two such threads run loops at once).
KmpcThread& kmpc_thread();

}  // namespace poolshim::abi::openmp::kmpc
