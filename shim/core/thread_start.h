// Starting one of the shim's own threads (pool workers, gang threads): detached, named, and with
// every signal blocked while it is created, so that it starts with every signal blocked and never
// runs the host's signal handlers; the creator's mask is restored before this returns.
#pragma once
#include <pthread.h>
#include <signal.h>

namespace poolshim::core {
#pragma GCC visibility push(hidden)

// Blocks every signal in the calling thread while alive (the mask new threads inherit).
class SignalsBlocked {
 public:
  SignalsBlocked();
  ~SignalsBlocked();
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

// pthread_create of a detached thread running main(nullptr), named `name` (at most 15 bytes),
// with pthread's default stack, or OMP_STACKSIZE's (GOMP_STACKSIZE's) where that is larger
// (OpenMP team members run on these threads; thread_start.cpp). Call it inside a SignalsBlocked
// scope. Returns pthread_create's error (0: started).
int start_detached(void* (*main)(void*), const char* name);

#pragma GCC visibility pop
}  // namespace poolshim::core
