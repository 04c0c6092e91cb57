// Starting the shim's threads (thread_start.h).
#include "core/thread_start.h"

#include <signal.h>

namespace poolshim::core {

SignalsBlocked::SignalsBlocked() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved_);
}

SignalsBlocked::~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

int start_detached(void* (*main)(void*), const char* name) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  const int err = pthread_create(&t, &attr, main, nullptr);
  pthread_attr_destroy(&attr);
  if (err == 0) pthread_setname_np(t, name);
  return err;
}

}  // namespace poolshim::core
