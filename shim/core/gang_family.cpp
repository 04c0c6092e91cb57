// Family tokens and their end (gang_family.h).
#include "core/gang_family.h"

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "core/servers.h"
#include "core/tls.h"

namespace poolshim::core::gang {
namespace {

std::atomic<uint32_t> g_next_family{1};
POOLSHIM_FAST_TLS thread_local uint32_t t_own = 0;
POOLSHIM_FAST_TLS thread_local uint32_t t_current = 0;

pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
pthread_key_t g_end_key;
bool g_key_made = false;

// A keeping caller ends: the threads kept for it serve anyone again.
void family_ends(void* token) {
  servers::release_kept(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(token)));
}

void make_key() { g_key_made = pthread_key_create(&g_end_key, family_ends) == 0; }

}  // namespace

uint32_t own_family() {
  if (t_own != 0) return t_own;
  pthread_once(&g_key_once, make_key);
  if (!g_key_made) return 0;
  uint32_t token = g_next_family.fetch_add(1, std::memory_order_relaxed);
  if (token == 0) token = g_next_family.fetch_add(1, std::memory_order_relaxed);  // wrapped
  if (pthread_setspecific(g_end_key, reinterpret_cast<void*>(uintptr_t{token})) != 0) return 0;
  t_own = token;
  return token;
}

uint32_t current_family() { return t_current; }

uint32_t set_current_family(uint32_t family) {
  const uint32_t before = t_current;
  t_current = family;
  return before;
}

}  // namespace poolshim::core::gang
