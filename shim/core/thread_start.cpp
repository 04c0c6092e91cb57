// Starting the shim's threads (thread_start.h).
#include "core/thread_start.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <initializer_list>

#include "budget/affinity.h"
#include "config/options.h"

namespace poolshim::core {
namespace {

// The stack size of the threads started from now on; 0 until computed, 1 for pthread's default.
std::atomic<size_t> g_stack{0};

// OMP_STACKSIZE (or GOMP_STACKSIZE) when it asks for more than pthread's default stack (from
// RLIMIT_STACK, usually 8 MiB): OpenMP team members run on these threads, and libgomp gives its
// threads that size. Never less than the default: the same threads serve pthreadpool calls.
size_t stack_size() {
  size_t bytes = g_stack.load(std::memory_order_relaxed);
  if (bytes != 0) return bytes;
  bytes = 1;
  if (size_t request = config::openmp_stack_request()) {
    pthread_attr_t attr;
    size_t normal = 0;
    if (pthread_getattr_default_np(&attr) == 0) {
      pthread_attr_getstacksize(&attr, &normal);
      pthread_attr_destroy(&attr);
    }
    if (request > normal) bytes = request;
  }
  g_stack.store(bytes, std::memory_order_relaxed);  // the same value from every thread
  return bytes;
}

}  // namespace

SignalsBlocked::SignalsBlocked() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved_);
}

SignalsBlocked::~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

int start_detached(void* (*main)(void*), const char* name) {
  const size_t stack = stack_size();
  // Not the pinned mask of the thread that starts it (budget::process_cpus()).
  const cpu_set_t* cpus = budget::process_cpus();
  int err = 0;
  pthread_t t;
  // A size the system refuses (an mmap past RLIMIT_AS, say) falls back to pthread's default, and
  // a mask it refuses (a place's CPU the cgroup does not allow) to the creator's.
  struct Try {
    bool sized, masked;
  };
  for (Try a : {Try{stack > 1, cpus != nullptr}, Try{false, cpus != nullptr}, Try{false, false}}) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (a.sized) pthread_attr_setstacksize(&attr, stack);
    if (a.masked) pthread_attr_setaffinity_np(&attr, sizeof(cpu_set_t), cpus);
    err = pthread_create(&t, &attr, main, nullptr);
    pthread_attr_destroy(&attr);
    if (err == 0 || (!a.sized && !a.masked)) break;
  }
  if (err == 0) pthread_setname_np(t, name);
  return err;
}

}  // namespace poolshim::core
