// The registry of serving threads (servers.h).
#include "core/servers.h"

#include "core/workers.h"

namespace poolshim::core::servers {
namespace {

// The next id to give; a pool worker's or gang thread's at its start, any other thread's on its
// first serve.
std::atomic<uint32_t> g_next_id{1};
POOLSHIM_FAST_TLS thread_local uint32_t t_id = 0;

struct alignas(kCacheLine) Server {
  std::atomic<bool> busy{false};
  std::atomic<bool> alive{false};
};
Server g_server[kTrackedIds];

std::atomic<uint32_t> g_pause{0};
std::atomic<uint32_t> g_served_threads{0};  // threads alive that served a seat
// The pause count when this thread last served a seat, plus 1 (0: never served).
POOLSHIM_FAST_TLS thread_local uint32_t t_served = 0;

}  // namespace

uint32_t my_id() {
  if (t_id == 0) t_id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  return t_id;
}

uint32_t id_if_any() { return t_id; }

void set_busy(uint32_t id, bool busy) {
  if (id != 0 && id < kTrackedIds) g_server[id].busy.store(busy, std::memory_order_relaxed);
}

bool busy(uint32_t id) {
  return id != 0 && id < kTrackedIds && g_server[id].busy.load(std::memory_order_relaxed);
}

void set_alive(uint32_t id, bool alive) {
  if (id != 0 && id < kTrackedIds) g_server[id].alive.store(alive, std::memory_order_relaxed);
}

size_t idle() {
  uint32_t ids = g_next_id.load(std::memory_order_relaxed);
  size_t n = workers::starting();
  for (uint32_t id = 1; id < ids && id < kTrackedIds; ++id)
    n += g_server[id].alive.load(std::memory_order_relaxed) &&
         !g_server[id].busy.load(std::memory_order_relaxed);
  return n;
}

uint32_t pauses() { return g_pause.load(std::memory_order_relaxed); }

void note_served() {
  uint32_t pause = g_pause.load(std::memory_order_relaxed);
  if (t_served == 0) g_served_threads.fetch_add(1, std::memory_order_relaxed);
  t_served = pause + 1;
}

bool retire_if_paused() {
  if (t_served == 0 || t_served == g_pause.load(std::memory_order_acquire) + 1) return false;
  t_served = 0;
  g_served_threads.fetch_sub(1, std::memory_order_seq_cst);
  return true;
}

uint32_t begin_pause() { return g_pause.fetch_add(1, std::memory_order_seq_cst) + 1; }

uint32_t served_threads() { return g_served_threads.load(std::memory_order_seq_cst); }

void atfork_child() {
  g_served_threads.store(0, std::memory_order_relaxed);
  t_served = 0;  // the forking thread's record: it is the child's only thread
  for (Server& v : g_server) {
    v.busy.store(false, std::memory_order_relaxed);
    v.alive.store(false, std::memory_order_relaxed);
  }
}

}  // namespace poolshim::core::servers
