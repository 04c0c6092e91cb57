// core/gang.h: a gang's members run at the same time (each waits until all have arrived, which
// would hang if any two ran one after the other), each member number once, the caller is member
// 0, teams larger than the pool get threads beyond it, and concurrent and nested gangs finish;
// each member runs on its own thread, member i on the same thread gang after gang (OpenMP
// threadprivate data), also with two keeping callers at once (and eight, each waking the thread
// it keeps), and after pause() on threads that never served a seat; a pool worker that spins idle
// is given its seat by the next gang's start (docked), and runs it; a fork's reset leaves the parts
// of the tables never used untouched.
#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "core/counters.h"
#include "core/gang.h"
#include "core/gang_seats.h"
#include "core/servers.h"
#include "core/size.h"

namespace {

// OpenMP's policy (abi/openmp: a seat waits up to 50 ms for the thread that served it last).
constexpr poolshim::core::gang::Policy kPreferring{50L * 1000 * 1000};
constexpr poolshim::core::gang::Policy kAnyThread{};
// OpenMP's policy for an outermost region: the caller also keeps the threads that served it.
constexpr poolshim::core::gang::Policy kKeeping{50L * 1000 * 1000, true};

struct Meeting {
  unsigned n;
  std::atomic<unsigned> arrived{0};
  std::atomic<unsigned> seen_mask{0};
  std::atomic<bool> caller_was_0{false};
  pthread_t caller;
};

void meet(void* ctx, unsigned m) {
  Meeting& g = *static_cast<Meeting*>(ctx);
  g.seen_mask.fetch_or(1u << m);
  if (m == 0) g.caller_was_0 = pthread_equal(pthread_self(), g.caller);
  g.arrived.fetch_add(1);
  while (g.arrived.load() < g.n) std::this_thread::yield();  // all members at once, or a hang
}

void run_meeting(unsigned n) {
  Meeting g;
  g.n = n;
  g.caller = pthread_self();
  poolshim::core::gang::run(n, meet, &g, kPreferring);
  EXPECT_EQ(g.arrived.load(), n);
  EXPECT_EQ(g.seen_mask.load(), (n == 32 ? ~0u : (1u << n) - 1));
  EXPECT_TRUE(g.caller_was_0.load());
}

TEST(Gang, MembersRunAtOnce) {
  for (unsigned n : {1u, 2u, 3u, 5u, 8u})
    for (int rep = 0; rep < 20; ++rep) run_meeting(n);
}

TEST(Gang, ConcurrentGangsFromSeveralThreads) {
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([] {
      for (int rep = 0; rep < 50; ++rep) run_meeting(3);
    });
  for (auto& t : ts) t.join();
}

void nested(void* ctx, unsigned m) { run_meeting(2); }

TEST(Gang, NestedGangs) {
  for (int rep = 0; rep < 20; ++rep) poolshim::core::gang::run(3, nested, nullptr, kPreferring);
}

TEST(Gang, StartJoinLetsTheCallerWorkBetween) {
  Meeting g;
  g.n = 3;
  g.caller = pthread_self();
  poolshim::core::gang::Gang h = poolshim::core::gang::start(3, meet, &g, kPreferring);
  meet(&g, 0);
  poolshim::core::gang::join(h);
  EXPECT_EQ(g.seen_mask.load(), 7u);
}

// Who ran each member, without waiting for each other (a gang that needs no barrier).
struct Who {
  pthread_t thread[8];
  thread_local static int mark;  // 0 on a thread that never ran a member here
  int marked[8];
};
thread_local int Who::mark = 0;

void who(void* ctx, unsigned m) {
  Who& w = *static_cast<Who*>(ctx);
  w.thread[m] = pthread_self();
  w.marked[m] = Who::mark;
  Who::mark = 1;
}

TEST(Gang, MemberIKeepsItsThreadAndEachHasItsOwn) {
  constexpr unsigned n = 6;
  Who first{};
  poolshim::core::gang::run(n, who, &first, kPreferring);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < i; ++j) EXPECT_FALSE(pthread_equal(first.thread[i], first.thread[j]));
  for (int rep = 0; rep < 5; ++rep) {
    Who w{};
    poolshim::core::gang::run(n, who, &w, kPreferring);
    for (unsigned i = 0; i < n; ++i) EXPECT_TRUE(pthread_equal(w.thread[i], first.thread[i])) << i;
  }
}

TEST(Gang, WithoutPreferenceEveryMemberRunsOnceOnItsOwnThread) {
  constexpr unsigned n = 5;
  for (int rep = 0; rep < 5; ++rep) {
    Who w{};
    poolshim::core::gang::run(n, who, &w, kAnyThread);
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = 0; j < i; ++j) EXPECT_FALSE(pthread_equal(w.thread[i], w.thread[j]));
  }
}

// Two callers opening gangs at once, each keeping its threads: member i of each caller's gangs
// runs on one thread from the first gang to the last, and the two callers' threads differ (a
// thread that one caller preferred used to take the other's open seat: issue 37).
TEST(Gang, KeepingCallersAtOnceEachKeepTheirThreads) {
  constexpr unsigned n = 3;
  constexpr int kGangs = 500;
  pthread_t first[2][n];
  int moved[2] = {0, 0};
  // Both callers run together and live until both are done: a keeper that ends frees its threads.
  std::atomic<int> started{0}, finished{0};
  auto caller = [&](int c) {
    started.fetch_add(1);
    while (started.load() < 2) std::this_thread::yield();
    for (int g = 0; g < kGangs; ++g) {
      Who w{};
      poolshim::core::gang::run(n, who, &w, kKeeping);
      for (unsigned i = 1; i < n; ++i) {
        if (g == 0) first[c][i] = w.thread[i];
        moved[c] += !pthread_equal(w.thread[i], first[c][i]);
      }
    }
    finished.fetch_add(1);
    while (finished.load() < 2) std::this_thread::yield();
  };
  std::thread a(caller, 0), b(caller, 1);
  a.join();
  b.join();
  EXPECT_EQ(moved[0], 0);
  EXPECT_EQ(moved[1], 0);
  for (unsigned i = 1; i < n; ++i)
    for (unsigned j = 1; j < n; ++j) EXPECT_FALSE(pthread_equal(first[0][i], first[1][j]));
}

// Many keeping callers at once, each with a thread of its own beyond the budget: each gang's
// start wakes the one gang thread its seat prefers (gang_threads.h, the naps), not all of them.
// A lost wake-up hangs here (a meeting's members wait for each other); each caller keeps one
// thread, none shared.
TEST(Gang, ManyKeepingCallersEachWakeTheThreadTheyKeep) {
  constexpr int kCallers = 8;
  constexpr int kGangs = 300;
  pthread_t first[kCallers];
  std::atomic<int> started{0}, finished{0}, met{0};
  auto caller = [&](int c) {
    started.fetch_add(1);
    while (started.load() < kCallers) std::this_thread::yield();
    for (int g = 0; g < kGangs; ++g) {
      Meeting m;
      m.n = 2;
      m.caller = pthread_self();
      poolshim::core::gang::run(2, meet, &m, kKeeping);
      met.fetch_add(m.arrived.load() == 2 && m.seen_mask.load() == 3u);
      Who w{};
      poolshim::core::gang::run(2, who, &w, kKeeping);
      if (g == 0) first[c] = w.thread[1];
    }
    finished.fetch_add(1);  // keepers live until all are done: one that ends frees its thread
    while (finished.load() < kCallers) std::this_thread::yield();
  };
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) callers.emplace_back(caller, c);
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(met.load(), kCallers * kGangs);
  for (int c = 0; c < kCallers; ++c)
    for (int d = c + 1; d < kCallers; ++d) EXPECT_FALSE(pthread_equal(first[c], first[d]));
}

TEST(Gang, PauseGivesFreshThreads) {
  constexpr unsigned n = 4;
  Who w{};
  poolshim::core::gang::run(n, who, &w, kPreferring);
  EXPECT_EQ(poolshim::core::gang::pause(100L * 1000 * 1000), 0);
  Who after{};
  poolshim::core::gang::run(n, who, &after, kPreferring);
  for (unsigned i = 1; i < n; ++i) EXPECT_EQ(after.marked[i], 0) << i;
}

// A pool worker that spins idle is docked, and the next gang's start gives it the seat it served
// last time without waiting for its claim (core/gang_seats.h, "Docking"): the docked_seats counter
// counts it, and that thread runs it. A worker is docked only while it spins (50 us after its
// last work), so each try first waits until it is.
// While it runs, seat 1 also records whether the gangs' word counts an open gang: a gang whose
// every seat went to a docked thread is not counted (nobody has to find it), a gang whose seat was
// claimed is.
struct Seat1 {
  pthread_t thread;
  uint32_t id;
  bool counted;
};
void record_seat1(void* ctx, unsigned m) {
  if (m != 1) return;
  Seat1& s = *static_cast<Seat1*>(ctx);
  s.thread = pthread_self();
  s.id = poolshim::core::servers::id_if_any();
  s.counted = poolshim::core::gang::any_open();
}

// Skips unless counters are compiled in and the pool has a worker to dock; runs a first gang of
// 2, whose seat 1's thread the next gangs prefer. (Run in the same process after other tests,
// that thread may be a gang thread, which never docks; CTest runs each test in its own.)
class DockedGang : public ::testing::Test {
 protected:
  void SetUp() override {
    poolshim_sched_counters c{};
    if (poolshim_debug_counters(&c, 0) != 0) GTEST_SKIP() << "counters compiled out (Release)";
    if (poolshim::core::pool_size() < 2) GTEST_SKIP() << "no pool worker to dock (a budget of 1)";
    poolshim::core::gang::run(2, record_seat1, &first_, kPreferring);
    ASSERT_TRUE(first_.id != 0 && first_.id < poolshim::core::servers::kTrackedIds);
  }
  // Waits until that thread is docked (it docks while it spins idle, 50 us after its last work),
  // then calls run_gang(); true if a start gave a docked worker its seat meanwhile (the
  // docked_seats counter moved).
  template <class RunGang>
  bool RunOnceDocked(RunGang run_gang) {
    namespace servers = poolshim::core::servers;
    const std::atomic<uint64_t>& dock = servers::g_server[first_.id].dock;
    for (int i = 0; i < 100000 && dock.load() != servers::kDocked; ++i) sched_yield();
    poolshim_sched_counters c{};
    EXPECT_EQ(poolshim_debug_counters(&c, 0), 0);
    const uint64_t before = c.docked_seats;
    run_gang();
    EXPECT_EQ(poolshim_debug_counters(&c, 0), 0);
    return c.docked_seats > before;
  }
  Seat1 first_{};
};

TEST_F(DockedGang, ADockedWorkerIsGivenItsSeatAndRunsIt) {
  bool given = false;
  for (int attempt = 0; attempt < 200 && !given; ++attempt) {
    Seat1 again{};
    given = RunOnceDocked([&] { poolshim::core::gang::run(2, record_seat1, &again, kPreferring); });
    EXPECT_TRUE(pthread_equal(again.thread, first_.thread));  // docked or not, its thread
    EXPECT_EQ(again.counted, !given);
  }
  EXPECT_TRUE(given) << "no start gave the docked worker its seat in 200 tries";
}

// crowded() counts the members of every open gang, those of a gang given whole to docked threads
// too (which the gangs' word does not count): a gang of 2 whose member 0 runs a nested gang of
// budget() members makes budget() + 2 members, more than the budget, whichever seats were docked.
struct Nest {
  unsigned inner_n;
  int inner_crowded;
};
void inner_member(void* ctx, unsigned m) {
  if (m == 1) static_cast<Nest*>(ctx)->inner_crowded = poolshim::core::gang::crowded();
}
void outer_member(void* ctx, unsigned m) {
  if (m != 0) return;
  Nest& nest = *static_cast<Nest*>(ctx);
  poolshim::core::gang::run(nest.inner_n, inner_member, &nest, kPreferring);
}

TEST_F(DockedGang, CrowdedCountsTheMembersOfGangsGivenToDockedThreads) {
  bool given = false;
  for (int attempt = 0; attempt < 200 && !given; ++attempt) {
    Nest nest{static_cast<unsigned>(poolshim::core::budget()), -1};
    given = RunOnceDocked([&] { poolshim::core::gang::run(2, outer_member, &nest, kPreferring); });
    EXPECT_EQ(nest.inner_crowded, 1);
  }
  EXPECT_TRUE(given) << "no start gave a docked worker a seat in 200 tries";
}

// A fork's reset (gang::atfork_child, run in every child of a process that loaded the shim)
// leaves the servers' entries past the ids given untouched where the child does not have their
// pages: the table is 64 KiB of .bss, which every child of every host would gain, a fault a page.
// No allocation: the child of a threaded parent calls it.
bool any_page_resident(uintptr_t from, uintptr_t to) {
  unsigned char in[64];
  const size_t pages = (to - from) / 4096;
  if (pages > sizeof in || mincore(reinterpret_cast<void*>(from), to - from, in) != 0) return true;
  for (size_t i = 0; i < pages; ++i)
    if (in[i] & 1) return true;
  return false;
}

TEST(Gang, ForkResetLeavesTheServersNeverGivenUntouched) {
  namespace servers = poolshim::core::servers;
  run_meeting(2);  // ids and a slot in use, as in a host that ran a region
  const uint32_t ids = servers::g_next_id.load();
  ASSERT_LT(ids + 128, servers::kTrackedIds);
  const uintptr_t page = 4096;
  const uintptr_t from =
      (reinterpret_cast<uintptr_t>(&servers::g_server[ids]) + page - 1) & ~(page - 1);
  const uintptr_t to =
      reinterpret_cast<uintptr_t>(&servers::g_server[servers::kTrackedIds]) & ~(page - 1);
  ASSERT_LT(from, to);
  ASSERT_FALSE(any_page_resident(from, to)) << "the table's unused entries were touched before";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    poolshim::core::gang::atfork_child();  // again, if the fork handlers ran it already
    _exit(any_page_resident(from, to) ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the fork's reset wrote entries of ids never given";
}

}  // namespace
