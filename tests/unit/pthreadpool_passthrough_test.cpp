// POOLSHIM_DISABLE=pthreadpool: every call goes to Debian's libpthreadpool.so.0 untouched; the
// functions it lacks run serially on the caller. (Own executable: the environment is set before
// the shim reads it.)
#include <gtest/gtest.h>

#include "abi/pthreadpool/handle.h"
#include "core/size.h"
#include "pthreadpool_testing.h"

using namespace ptp_test;

namespace {

EnvAtLoad g_env("POOLSHIM_DISABLE", "pthreadpool");

TEST(Passthrough, CreateReturnsDebiansPool) {
  size_t before = poolshim::core::live_requests();
  pthreadpool_t p = pthreadpool_create(2);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(poolshim::abi::ptp::lookup(p), nullptr);   // not a shim handle
  EXPECT_EQ(poolshim::core::live_requests(), before);  // no request on the shared pool
  EXPECT_EQ(PTP_DEBIAN(get_threads_count)(p), 2u);     // Debian understands it
  EXPECT_EQ(pthreadpool_get_threads_count(p), 2u);
  pthreadpool_destroy(p);
}

TEST(Passthrough, CallsReachDebian) {
  pthreadpool_t p = pthreadpool_create(2);
  Recorder mine, ref;
  pthreadpool_parallelize_2d_tile_2d(p, &record<size_t, size_t, size_t, size_t>, &mine, 11, 7, 3, 2,
                                     0);
  PTP_DEBIAN(parallelize_2d_tile_2d)
  (nullptr, &record<size_t, size_t, size_t, size_t>, &ref, 11, 7, 3, 2, 0);
  EXPECT_EQ(mine.sorted(), ref.sorted());
  mine.clear();
  ref.clear();
  pthreadpool_compute_3d_tiled(p, &record<size_t, size_t, size_t, size_t, size_t, size_t>, &mine, 4,
                               5, 6, 3, 2, 4);
  PTP_DEBIAN(compute_3d_tiled)
  (nullptr, &record<size_t, size_t, size_t, size_t, size_t, size_t>, &ref, 4, 5, 6, 3, 2, 4);
  EXPECT_EQ(mine.sorted(), ref.sorted());
  pthreadpool_destroy(p);
}

struct Probe {
  std::vector<pthread_t> threads;
  std::vector<size_t> indices;
};
void probe(void* ctx, size_t thread_index, size_t) {
  auto* p = static_cast<Probe*>(ctx);  // serial: no lock needed, and a race would show in TSan
  p->threads.push_back(pthread_self());
  p->indices.push_back(thread_index);
}

TEST(Passthrough, FunctionsDebianLacksRunSerially) {
  pthreadpool_t p = pthreadpool_create(2);
  Probe probe_data;
  pthreadpool_parallelize_1d_with_thread(p, probe, &probe_data, 300, 0);
  ASSERT_EQ(probe_data.threads.size(), 300u);
  for (size_t k = 0; k < 300; ++k) {
    EXPECT_TRUE(pthread_equal(probe_data.threads[k], pthread_self()));
    EXPECT_EQ(probe_data.indices[k], 0u);
  }
  Recorder r;
  pthreadpool_parallelize_1d_tile_1d_dynamic(p, &record<size_t, size_t>, &r, 50, 8, 0);
  EXPECT_EQ(r.calls, (std::vector<Call>{{0, 50}}));    // serial: one run
  EXPECT_EQ(pthreadpool_set_threads_count(p, 1), 2u);  // cannot change a Debian pool
  EXPECT_FALSE(pthreadpool_update_executor(p, nullptr, nullptr));
  pthreadpool_release_executor_threads(p);
  pthreadpool_destroy(p);
}

TEST(Passthrough, CreateV2GivesADebianPoolOfTheSameSize) {
  pthreadpool_executor e{[](void*) { return 1; }, [](void*, void*, void (*)(void*)) {}};
  pthreadpool_t p = pthreadpool_create_v2(&e, nullptr, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(poolshim::abi::ptp::lookup(p), nullptr);
  EXPECT_EQ(PTP_DEBIAN(get_threads_count)(p), 2u);  // executor's 1 + the caller
  pthreadpool_destroy(p);
}

TEST(Passthrough, ExecuTorchHandleIsDebians) {
  pthreadpool_t p = poolshim::abi::executorch_pthreadpool();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(poolshim::abi::ptp::lookup(p), nullptr);
  Recorder r;
  pthreadpool_parallelize_1d(p, &record<size_t>, &r, 20, 0);
  EXPECT_EQ(r.calls.size(), 20u);
}

}  // namespace
