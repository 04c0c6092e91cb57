// Where a woken worker runs (docs/scheduler.md, "Placement"). A thread woken by a futex, or just
// created, is often put on its waker's CPU, where the waker goes on running its call: the two
// then share one CPU while another sits idle, the worker either queued behind the caller (calls
// run on their caller alone) or preempting it (the worker runs the whole call and the caller
// waits), until the kernel's balancer moves one of them, which took milliseconds on a 2-vCPU VM
// and recurred on every futex wake-up from then on. So the waker notes its CPU, and a worker that
// finds itself on that CPU after a wake-up steps off it: a sched_setaffinity() without that CPU,
// which migrates it at once, then its mask as it was.
#pragma once
#include <sched.h>

namespace poolshim::core::placement {

// The waker (a spawner, or a thread about to futex-wake workers): notes the CPU it runs on.
void note_waker();
// A worker just started or back from a futex sleep: moves to another allowed CPU when it runs on
// the one its waker noted. Its affinity mask ends as it was; nothing happens when the mask has
// one CPU, or cannot be read or set.
void step_off_waker();

// A runtime binds the calling thread to `cpus` for its own work (OpenMP places); `tag` names
// them (a place number), so binding to the same tag again costs nothing. The thread's mask
// before its first bind is kept, and unbind() gives it back: the pool's work (a pthreadpool
// call) runs on the thread's own mask, not on the last team's place. false when the kernel
// refused (the thread then runs unbound).
bool bind(const cpu_set_t& cpus, int tag);
void unbind();
// Whether the calling thread is bound (bind() since its last unbind()).
bool is_bound();

}  // namespace poolshim::core::placement
