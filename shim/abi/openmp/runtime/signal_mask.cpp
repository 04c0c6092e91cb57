// A team member's signal mask (signal_mask.h).
#include "abi/openmp/runtime/signal_mask.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>

namespace poolshim::abi::openmp::runtime {
namespace {

// 0: not captured; 1: a creator is capturing it; 2: g_mask holds it. Written once by the first
// creator of a team of more than one (0 -> 1 -> 2, the last a release), read by the members.
std::atomic<int> g_state{0};
sigset_t g_mask;
thread_local bool t_has_mask = false;  // this thread runs with g_mask

}  // namespace

void capture_program_mask() {
  if (g_state.load(std::memory_order_acquire) != 0) return;
  int none = 0;
  if (!g_state.compare_exchange_strong(none, 1, std::memory_order_acq_rel)) return;
  pthread_sigmask(SIG_BLOCK, nullptr, &g_mask);
  g_state.store(2, std::memory_order_release);
}

void take_program_mask() {
  if (t_has_mask || g_state.load(std::memory_order_acquire) != 2) return;
  pthread_sigmask(SIG_SETMASK, &g_mask, nullptr);
  t_has_mask = true;
}

}  // namespace poolshim::abi::openmp::runtime
