// The signal mask OpenMP code runs with on a team member.
//
// The pool's threads start with every signal blocked (core/thread_start.h), so that no signal
// meant for the program's own threads lands on a thread it does not know. OpenMP code is the
// program's, though: on libgomp a team member is a thread the region's creator started, with
// that creator's mask, so a signal the code sends itself (pthread_kill, a profiling timer) or
// causes (a handled SIGSEGV) reaches its handler. So the mask of the creator of the first region
// of more than one member is captured once, and a member thread takes it the first time it runs
// member code and keeps it (a change costs a system call, about 0.3 us: once per thread, not
// per region). libgomp's threads keep the mask of the thread that started them; here every
// member has the first creator's, which is the same for a program whose threads share one.
#pragma once

namespace poolshim::abi::openmp::runtime {

// The region's creator, before its team starts (a team of more than one): the first call
// captures its mask.
void capture_program_mask();
// A member thread other than the creator, before it runs member code: takes the captured mask
// unless it has it.
void take_program_mask();

}  // namespace poolshim::abi::openmp::runtime
