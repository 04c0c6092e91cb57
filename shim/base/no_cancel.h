// Thread cancellation held off while the shim does I/O on a host's thread.
//
// open, read, write, close and usleep are cancellation points. The host's pools have none inside a
// call (libgomp's region, Debian pthreadpool's parallelize): a thread with a pending
// pthread_cancel runs its call to the end and is cancelled at its own next cancellation point.
// The shim reads files on a caller's thread (first use: the CPU budget from sysfs and the cgroup,
// /proc/self/stat; the log; the group ledger; the ELF files it audits), and a cancel acted on there
// would unwind out of the middle of a call, leaving a gang open with its context on a stack that
// is gone. Every such site holds a NoCancel for its duration: a pending request stays pending, and
// the thread's next cancellation point after the shim returns acts on it, as without the shim.
#pragma once
#include <pthread.h>

namespace poolshim::base {
#pragma GCC visibility push(hidden)

class NoCancel {
 public:
  NoCancel() { pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old_); }
  ~NoCancel() { pthread_setcancelstate(old_, nullptr); }
  NoCancel(const NoCancel&) = delete;
  NoCancel& operator=(const NoCancel&) = delete;

 private:
  int old_ = PTHREAD_CANCEL_ENABLE;
};

#pragma GCC visibility pop
}  // namespace poolshim::base
