// First-use initialisation that a fork() can interrupt, and the test hook that holds it open.
//
// The shim initialises lazily (nothing at load time), and a host may fork at any instant, also
// while another thread is inside one of those initialisations. A C++ function-local static with
// a dynamic initialiser is the wrong tool there: its guard is inherited "in progress" by the
// child, where no thread will ever finish it, and the child's first use waits forever. Every
// first-use initialisation of the shim is therefore a pthread_once routine (glibc restarts a
// routine that a fork interrupted in the child: tests/unit/first_use_test.cpp checks that
// claim), published by an atomic flag so the hot path costs one acquire load. No function-local
// static with a dynamic initialiser may come back: tests/unit/first_use_test.cpp fails on any
// reference to __cxa_guard_acquire from the shim's own objects.
//
// Each once routine calls first_use(what) first. In a user's process that is a test of one weak
// symbol's address, which is null, so nothing happens. A test host (tests/fixtures/fork) defines
// and exports
//     extern "C" void poolshim_testing_hold_first_use(const char* what);
// and the dynamic linker binds the shim's weak reference to it: the host can then hold the
// initialisation open (say, until its main thread has forked), so a fork lands inside it every
// time instead of once in a while. Nothing can trigger it by accident: only a program that
// defines a function of that name, exported from its executable or a library, does.
#pragma once

namespace poolshim::base {

// Called at the start of every first-use initialisation (once routine) of the shim; what names
// it ("budget", "busy", "executorch_pthreadpool", ...). Costs a null test unless a test host
// defines the hook.
void first_use(const char* what);

}  // namespace poolshim::base
