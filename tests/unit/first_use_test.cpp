// First-use initialisation and fork (shim/base/first_use.h, docs/design.md "Fork"):
//  - no function-local static with a dynamic initialiser is left in libpoolshim.so: its guard,
//    inherited "in progress" by the child of a fork that lands inside the initialiser, is never
//    released there. The check disassembles the built library and fails on any reference to
//    __cxa_guard_acquire (libstdc++ is linked in statically, so the guard functions themselves
//    are in the library; what must not be there is a caller);
//  - the replacement, pthread_once, is restarted in the child when a fork interrupts its routine
//    in another thread: the glibc behaviour the shim relies on, checked here rather than trusted.
#include <gtest/gtest.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <set>
#include <string>

#include "base/first_use.h"
#include "shim_exports.h"

namespace {

// The functions of the built library whose code references __cxa_guard_acquire (objdump -d);
// the guard's own functions (and their .cold parts) do not count. ok is false when objdump
// could not be run or showed no code.
std::set<std::string> guard_callers(bool* ok) {
  std::set<std::string> callers;
  std::string cmd = "objdump -d --no-show-raw-insn -C '" + shim_library_path() + "' 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  *ok = false;
  if (p == nullptr) return callers;
  std::string function;
  char line[8192];
  while (fgets(line, sizeof line, p)) {
    std::string l(line);
    size_t open = l.find(" <");
    if (open != std::string::npos && l.size() > 3 && l.compare(l.size() - 3, 3, ">:\n") == 0) {
      function = l.substr(open + 2, l.size() - open - 5);  // a label line: "addr <name>:"
      *ok = true;
      continue;
    }
    if (l.find("<__cxa_guard_acquire") == std::string::npos) continue;
    if (function.rfind("__cxa_guard_", 0) == 0) continue;
    callers.insert(function);
  }
  pclose(p);
  return callers;
}

TEST(FirstUse, NoFunctionLocalStaticWithDynamicInitialisation) {
  bool ok = false;
  std::set<std::string> callers = guard_callers(&ok);
  ASSERT_TRUE(ok) << "could not disassemble " << shim_library_path() << " with objdump";
  for (const std::string& f : callers)
    ADD_FAILURE() << f << " has a function-local static with a dynamic initialiser (it calls "
                  << "__cxa_guard_acquire): a fork during its initialisation hangs the child. "
                  << "Use a pthread_once routine published by an atomic (base/first_use.h).";
}

// The routine of a pthread_once that a fork interrupts: in the parent it holds on until the
// test releases it; in the child (whose pid differs) it just counts.
pid_t g_parent = 0;
std::atomic<bool> g_entered{false};
std::atomic<bool> g_release{false};
std::atomic<int> g_runs{0};
pthread_once_t g_control = PTHREAD_ONCE_INIT;

void routine() {
  g_runs.fetch_add(1);
  g_entered.store(true);
  if (getpid() != g_parent) return;
  while (!g_release.load()) usleep(100);
}

TEST(FirstUse, GlibcRestartsAOnceRoutineThatAForkInterrupted) {
  g_parent = getpid();
  pthread_t t;
  ASSERT_EQ(0, pthread_create(
                   &t, nullptr,
                   [](void*) -> void* {
                     pthread_once(&g_control, routine);
                     return nullptr;
                   },
                   nullptr));
  while (!g_entered.load()) usleep(100);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(10);  // the watchdog: a child stuck in pthread_once dies of SIGALRM
    pthread_once(&g_control, routine);  // restarted here: the parent's run is not the child's
    _exit(g_runs.load() == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  g_release.store(true);
  pthread_join(t, nullptr);
  EXPECT_TRUE(WIFEXITED(status)) << "the child did not exit (signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << "): pthread_once waited for the parent's routine";
  if (WIFEXITED(status))
    EXPECT_EQ(0, WEXITSTATUS(status)) << "the routine did not run in the child";
  EXPECT_EQ(1, g_runs.load());
  pthread_once(&g_control, routine);  // done in the parent: not run again
  EXPECT_EQ(1, g_runs.load());
}

TEST(FirstUse, HookIsANoOpWithoutADefinition) {
  poolshim::base::first_use("budget");  // no poolshim_testing_hold_first_use in this program
  SUCCEED();
}

}  // namespace
