// pthreadpool handles on the one pool: grants, set_threads_count, destroy (and double destroy),
// NULL and unknown pools, the ExecuTorch handle, nesting, concurrent callers, denormals.
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "abi/pthreadpool/handle.h"
#include "core/size.h"
#include "pthreadpool_testing.h"

using namespace ptp_test;

namespace {

std::string log_path() {
  return "/tmp/poolshim_ptp_handle_test." + std::to_string(getpid()) + ".log";
}
// Budget 4; warnings into a file of our own so the tests can read them.
EnvAtLoad g_env1("POOLSHIM_NUM_THREADS", "4");
EnvAtLoad g_env2("POOLSHIM_LOG", "warn");
EnvAtLoad g_env3("POOLSHIM_LOG_FILE", log_path().c_str());
struct RemoveLogAtExit {
  ~RemoveLogAtExit() { unlink(log_path().c_str()); }
} g_remove_log;

std::string read_log() {
  std::ifstream f(log_path());
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ThreadProbe {
  std::mutex m;
  std::vector<pthread_t> threads;
  std::vector<size_t> indices;
};
void probe(void* ctx, size_t thread_index, size_t) {
  // A few microseconds of work per item, so that every worker of the pool gets to take some.
  for (auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(3);
       std::chrono::steady_clock::now() < end;) {
  }
  auto* p = static_cast<ThreadProbe*>(ctx);
  std::lock_guard<std::mutex> lock(p->m);
  p->threads.push_back(pthread_self());
  p->indices.push_back(thread_index);
}

TEST(Handle, CreateRecordsARequestAndReturnsTheGrant) {
  size_t before = poolshim::core::live_requests();
  pthreadpool_t a = pthreadpool_create(2);
  pthreadpool_t b = pthreadpool_create(0);
  pthreadpool_t c = pthreadpool_create(64);
  ASSERT_TRUE(a && b && c);
  EXPECT_NE(a, b);
  EXPECT_EQ(poolshim::core::live_requests(), before + 3);
  EXPECT_EQ(pthreadpool_get_threads_count(a), 2u);
  EXPECT_EQ(pthreadpool_get_threads_count(b), 4u);  // 0 = the whole budget
  EXPECT_EQ(pthreadpool_get_threads_count(c), 4u);  // capped by the budget
  pthreadpool_destroy(a);
  pthreadpool_destroy(b);
  pthreadpool_destroy(c);
  EXPECT_EQ(poolshim::core::live_requests(), before);  // the handle goes, the pool stays
}

TEST(Handle, ThreadIndexStaysBelowTheGrant) {
  pthreadpool_t wide = pthreadpool_create(0);  // keeps the one pool at the budget (4)
  for (size_t n = 1; n <= 4; ++n) {
    pthreadpool_t h = pthreadpool_create(n);
    ThreadProbe p;
    pthreadpool_parallelize_1d_with_thread(h, probe, &p, 2000, 0);
    ASSERT_EQ(p.indices.size(), 2000u);
    for (size_t i : p.indices) ASSERT_LT(i, n);
    pthreadpool_destroy(h);
  }
  pthreadpool_destroy(wide);
}

TEST(Handle, SetThreadsCountFollowsTheHeader) {
  pthreadpool_t wide = pthreadpool_create(0);
  pthreadpool_t h = pthreadpool_create(3);
  EXPECT_EQ(pthreadpool_set_threads_count(h, 2), 2u);
  EXPECT_EQ(pthreadpool_get_threads_count(h), 2u);
  ThreadProbe p;
  pthreadpool_parallelize_1d_with_thread(h, probe, &p, 1000, 0);
  for (size_t i : p.indices) ASSERT_LT(i, 2u);
  EXPECT_EQ(pthreadpool_set_threads_count(h, 10), 3u);  // at most the creation count
  EXPECT_EQ(pthreadpool_set_threads_count(h, 1), 1u);
  EXPECT_EQ(pthreadpool_set_threads_count(h, 0), 3u);  // 0 = back to the creation count
  EXPECT_EQ(pthreadpool_get_threads_count(h), 3u);
  EXPECT_EQ(pthreadpool_set_threads_count(nullptr, 5), 1u);
  pthreadpool_destroy(h);
  pthreadpool_destroy(wide);
}

TEST(Handle, NullPoolRunsSeriallyOnTheCaller) {
  ThreadProbe p;
  pthreadpool_parallelize_1d_with_thread(nullptr, probe, &p, 100, 0);
  ASSERT_EQ(p.threads.size(), 100u);
  for (size_t k = 0; k < 100; ++k) {
    EXPECT_TRUE(pthread_equal(p.threads[k], pthread_self()));
    EXPECT_EQ(p.indices[k], 0u);
  }
  EXPECT_EQ(pthreadpool_get_threads_count(nullptr), 1u);
}

TEST(Handle, UnknownPoolRunsSeriallyWithAWarning) {
  // What another pthreadpool copy's pool might look like to us: some heap object.
  std::vector<uint64_t> foreign(64, 0x1234);
  auto* pool = reinterpret_cast<pthreadpool_t>(foreign.data());
  ThreadProbe p;
  pthreadpool_parallelize_1d_with_thread(pool, probe, &p, 50, 0);
  ASSERT_EQ(p.threads.size(), 50u);
  for (auto t : p.threads) EXPECT_TRUE(pthread_equal(t, pthread_self()));
  EXPECT_EQ(pthreadpool_get_threads_count(pool), 1u);
  pthreadpool_destroy(pool);  // refused, and the memory is not touched
  EXPECT_EQ(foreign[0], 0x1234u);
  EXPECT_NE(read_log().find("not a poolshim pthreadpool handle"), std::string::npos) << read_log();
}

TEST(Handle, DoubleDestroyIsDetected) {
  pthreadpool_t h = pthreadpool_create(2);
  size_t before = poolshim::core::live_requests();
  pthreadpool_destroy(h);
  EXPECT_EQ(poolshim::core::live_requests(), before - 1);
  pthreadpool_destroy(h);  // no crash, no second release
  EXPECT_EQ(poolshim::core::live_requests(), before - 1);
  EXPECT_NE(read_log().find("double destroy"), std::string::npos) << read_log();
}

TEST(Handle, ExecuTorchHandleLivesForever) {
  pthreadpool_t et = poolshim::abi::executorch_pthreadpool();
  ASSERT_NE(et, nullptr);
  EXPECT_EQ(et, poolshim::abi::executorch_pthreadpool());
  EXPECT_EQ(pthreadpool_get_threads_count(et), 4u);  // request 0 = the whole budget
  pthreadpool_destroy(et);                           // refused
  EXPECT_NE(poolshim::abi::ptp::lookup(et), nullptr);
  Recorder r;
  pthreadpool_parallelize_1d(et, &record<size_t>, &r, 10, 0);
  EXPECT_EQ(r.calls.size(), 10u);
}

struct Nest {
  pthreadpool_t pool;
  std::atomic<size_t> inner{0};
  std::atomic<bool> inner_on_other_thread{false};
};
void inner_task(void* ctx, size_t) { static_cast<Nest*>(ctx)->inner.fetch_add(1); }
void outer_task(void* ctx, size_t) {
  auto* n = static_cast<Nest*>(ctx);
  // A nested call on the same handle (any surface may do this once pools are shared).
  pthreadpool_parallelize_1d(n->pool, inner_task, n, 10, 0);
}

TEST(Handle, NestedCallsRunInline) {
  Nest n;
  n.pool = pthreadpool_create(0);
  pthreadpool_parallelize_1d(n.pool, outer_task, &n, 40, 0);
  EXPECT_EQ(n.inner.load(), 400u);
  pthreadpool_destroy(n.pool);
}

TEST(Handle, ConcurrentCallersOnSeveralHandles) {
  pthreadpool_t a = pthreadpool_create(2), b = pthreadpool_create(3);
  Recorder ra, rb;
  std::thread t1([&] {
    for (int k = 0; k < 50; ++k)
      pthreadpool_parallelize_2d(a, &record<size_t, size_t>, &ra, 7, 9, 0);
  });
  std::thread t2([&] {
    for (int k = 0; k < 50; ++k)
      pthreadpool_parallelize_2d(b, &record<size_t, size_t>, &rb, 5, 11, 0);
  });
  t1.join();
  t2.join();
  EXPECT_EQ(ra.calls.size(), 50u * 63);
  EXPECT_EQ(rb.calls.size(), 50u * 55);
  pthreadpool_destroy(a);
  pthreadpool_destroy(b);
}

#if defined(__x86_64__)
struct Csr {
  std::atomic<size_t> with_ftz_daz{0}, total{0};
};
void csr_task(void* ctx, size_t) {
  auto* c = static_cast<Csr*>(ctx);
  if ((_mm_getcsr() & 0x8040) == 0x8040) c->with_ftz_daz.fetch_add(1);
  c->total.fetch_add(1);
}

TEST(Handle, DisableDenormalsOnEveryPath) {
  const unsigned before = _mm_getcsr();
  pthreadpool_t h = pthreadpool_create(3);
  for (pthreadpool_t pool : {static_cast<pthreadpool_t>(nullptr), h}) {
    Csr c;
    pthreadpool_parallelize_1d(pool, csr_task, &c, 500, PTHREADPOOL_FLAG_DISABLE_DENORMALS);
    EXPECT_EQ(c.with_ftz_daz.load(), 500u);
    EXPECT_EQ(_mm_getcsr(), before);  // restored on the caller
  }
  pthreadpool_destroy(h);
}
#endif

}  // namespace
