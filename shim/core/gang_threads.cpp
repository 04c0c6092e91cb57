// Gang threads beyond the budget (gang_threads.h).
#include "core/gang_threads.h"

#include <atomic>

#include "base/fork_hooks.h"
#include "base/clock.h"
#include "core/futex.h"
#include "core/servers.h"
#include "core/thread_start.h"
#include "core/wait.h"
#include "core/workers.h"
#include "diag/log.h"

namespace poolshim::core::gang {
namespace {

using base::now_ns;

// Bumped when a gang needs any gang thread (wake_gang_threads); spinning ones poll it. Sleepers:
// the gang threads napping (gang_threads.h).
std::atomic<uint32_t> g_gang_epoch{0};
std::atomic<uint32_t> g_gang_sleepers{0};
// Gang threads started and not yet looking for seats (fill_with_gang_threads counts them coming).
std::atomic<uint32_t> g_gang_starting{0};
std::atomic<size_t> g_extra{0};  // gang threads started (workers beyond the budget)
std::atomic<size_t> g_live{0};   // gang threads started and not ended (by a pause)

// The nap of the gang threads past servers::kTrackedIds (no line of their own): every
// wake_gang_threads wakes them all; no gang prefers them.
servers::Server g_untracked;

// How long a gang that starts gang threads first lets the idle ones (just woken) take seats.
constexpr long kWokenClaimNs = 20 * 1000;

// A gang thread asleep on its nap word (wait::sleep_on's sleepers): counted in g_gang_sleepers,
// and napping on its own line, which wake_gang_thread reads.
struct Napping {
  servers::Server& me;
  void raise() const {
    g_gang_sleepers.fetch_add(1, std::memory_order_seq_cst);
    me.napping.store(true, std::memory_order_seq_cst);
  }
  void lower() const {
    me.napping.store(false, std::memory_order_relaxed);
    g_gang_sleepers.fetch_sub(1, std::memory_order_relaxed);
  }
};

// A gang thread: serve seats; spin like a pool worker, then sleep on its nap word.
void* gang_thread_main(void*) {
  const uint32_t id = servers::my_id();
  servers::set_alive(id, true);
  g_gang_starting.fetch_sub(1, std::memory_order_relaxed);
  servers::Server& me = id < servers::kTrackedIds ? servers::g_server[id] : g_untracked;
  for (;;) {
    const uint32_t seen = g_gang_epoch.load(std::memory_order_acquire);
    const uint32_t opens = gangs_opened();  // before the look: a later open moves it
    const uint32_t nap = me.nap.load(std::memory_order_acquire);
    if (servers::retire_if_paused()) {
      servers::set_alive(id, false);
      g_live.fetch_sub(1, std::memory_order_relaxed);
      return nullptr;
    }
    if (serve_any()) continue;
    auto moved = [&] {
      return g_gang_epoch.load(std::memory_order_seq_cst) != seen || gangs_opened() != opens;
    };
    if (wait::spin_for(spin_ns(wait::kSpinNs), moved)) continue;
    // Asleep until woken, unless a gang opened or the epoch moved since the look (read after the
    // raise, seq_cst, against the open's or the wake's read of napping).
    wait::sleep_on(me.nap, nap, Napping{me}, moved, [] {});
  }
  return nullptr;
}

// Starts one gang thread (signals blocked, as pool workers); false when pthread_create fails.
bool start_gang_thread() {
  g_gang_starting.fetch_add(1, std::memory_order_relaxed);  // before the thread can subtract it
  g_live.fetch_add(1, std::memory_order_relaxed);           // (a pause may end it at once)
  int err;
  {
    SignalsBlocked blocked;
    err = start_detached(gang_thread_main, "poolshim-team");
  }
  if (err != 0) {
    g_gang_starting.fetch_sub(1, std::memory_order_relaxed);
    g_live.fetch_sub(1, std::memory_order_relaxed);
    return false;
  }
  size_t n = g_extra.fetch_add(1, std::memory_order_relaxed) + 1;
  diag::log_once(diag::LogSite::team_extra_threads, diag::LogLevel::info,
                 "team: no idle pool worker for a team's seat; started a team thread beyond the "
                 "budget, as libgomp would (%zu so far; poolshim info counts them)",
                 n);
  return true;
}

}  // namespace

void wake_gang_threads() {
  g_gang_epoch.fetch_add(1, std::memory_order_seq_cst);
  if (g_gang_sleepers.load(std::memory_order_seq_cst) == 0) return;
  const uint32_t ids = servers::g_next_id.load(std::memory_order_relaxed);
  for (uint32_t id = 1; id < ids && id < servers::kTrackedIds; ++id) wake_gang_thread(id);
  if (ids > servers::kTrackedIds) {
    g_untracked.nap.fetch_add(1, std::memory_order_seq_cst);
    futex_wake(&g_untracked.nap, 1 << 30);
  }
}

void wake_gang_thread(uint32_t id) {
  if (id == 0 || id >= servers::kTrackedIds) return;
  servers::Server& server = servers::g_server[id];
  if (!server.napping.load(std::memory_order_seq_cst)) return;
  server.nap.fetch_add(1, std::memory_order_seq_cst);
  futex_wake(&server.nap, 1);
}

unsigned fill_with_gang_threads(Slot& s, unsigned members, bool discount_idle, bool* short_of) {
  wake_gang_threads();
  const long deadline = now_ns() + kWokenClaimNs;
  while (now_ns() < deadline && unclaimed(s, members) != 0) cpu_relax();
  size_t idle = 0;
  if (discount_idle) {
    idle = servers::idle(s.family.load(std::memory_order_relaxed));
    size_t returned = s.done.load(std::memory_order_acquire);
    idle = idle > returned ? idle - returned : 0;
  }
  size_t coming = g_gang_starting.load(std::memory_order_relaxed) + idle;
  unsigned open = unclaimed(s, members);
  open = coming >= open ? 0 : open - static_cast<unsigned>(coming);
  unsigned started = 0;
  while (started < open && start_gang_thread()) ++started;
  *short_of = started < open && coming == 0;
  if (started < open) {  // no thread to start: the threads kept for other families serve it too
    s.any_family.store(true, std::memory_order_relaxed);
    workers::wake(workers::count());
    wake_gang_threads();
  }
  return started;
}

size_t started_threads() { return g_extra.load(std::memory_order_relaxed); }
size_t starting_threads() { return g_gang_starting.load(std::memory_order_relaxed); }
size_t live_threads() { return g_live.load(std::memory_order_relaxed); }

void threads_atfork_prepare() {
  base::map_for_children(g_gang_sleepers, g_gang_starting, g_extra, g_live);
}

void threads_atfork_child() {
  base::reset_if_set(g_gang_sleepers, 0);
  base::reset_if_set(g_gang_starting, 0);
  base::reset_if_set(g_extra, 0);
  base::reset_if_set(g_live, 0);
}

}  // namespace poolshim::core::gang
