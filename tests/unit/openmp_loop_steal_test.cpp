// Dynamic loops in any order (shim/abi/openmp/runtime/loop_steal.cpp): members racing on real
// threads claim every chunk exactly once, a member that never comes loses nothing (the others
// steal its block), and the loop's last chunk is the last one its member claims (the compilers'
// lastprivate depends on it); where stealing cannot serve, steal_init declines.
#include <gtest/gtest.h>

#include <stdint.h>

#include <atomic>
#include <thread>
#include <vector>

#include "abi/openmp/runtime/loop.h"
#include "abi/openmp/runtime/state.h"

namespace {

namespace rt = poolshim::abi::openmp::runtime;

// Runs `present` of the construct's members on threads of their own, each claiming until it is
// told there is no chunk left; returns each member's claims in order.
std::vector<std::vector<uint32_t>> claim_all(rt::WorkShare* w, unsigned present) {
  std::vector<std::vector<uint32_t>> claims(present);
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (unsigned m = 0; m < present; ++m) {
    threads.emplace_back([&, m] {
      while (!go.load()) {
      }
      uint32_t k;
      while (rt::steal_claim(w, m, &k)) claims[m].push_back(k);
      // Asked again, a member that found nothing still finds nothing.
      EXPECT_FALSE(rt::steal_claim(w, m, &k)) << "member " << m;
    });
  }
  go.store(true);
  for (auto& t : threads) t.join();
  return claims;
}

void expect_each_chunk_once(const std::vector<std::vector<uint32_t>>& claims, uint32_t chunks) {
  std::vector<int> seen(chunks, 0);
  for (const auto& member : claims)
    for (uint32_t k : member) {
      ASSERT_LT(k, chunks);
      ++seen[k];
    }
  for (uint32_t k = 0; k < chunks; ++k) EXPECT_EQ(seen[k], 1) << "chunk " << k;
  // The last chunk ends its member's claims.
  for (const auto& member : claims)
    for (size_t i = 0; i < member.size(); ++i)
      if (member[i] == chunks - 1) EXPECT_EQ(i, member.size() - 1);
}

TEST(OpenmpLoopSteal, EveryChunkOnceAndTheLastOneLast) {
  for (unsigned members : {2u, 3u, 4u}) {
    for (uint32_t chunks : {1u, 2u, 3u, 5u, 64u, 1001u, 20000u}) {
      for (int round = 0; round < 20; ++round) {
        rt::WorkShare w;
        ASSERT_TRUE(rt::steal_init(&w, chunks, members));
        expect_each_chunk_once(claim_all(&w, members), chunks);
      }
    }
  }
}

TEST(OpenmpLoopSteal, AMemberThatNeverComesLosesNothing) {
  // Members 0 and 1 of 3 run; member 2's block is stolen whole.
  for (uint32_t chunks : {2u, 7u, 300u}) {
    rt::WorkShare w;
    ASSERT_TRUE(rt::steal_init(&w, chunks, 3));
    expect_each_chunk_once(claim_all(&w, 2), chunks);
  }
  // One member alone runs a whole team's loop.
  rt::WorkShare w;
  ASSERT_TRUE(rt::steal_init(&w, 1000, 4));
  auto claims = claim_all(&w, 1);
  EXPECT_EQ(claims[0].size(), 1000u);
  expect_each_chunk_once(claims, 1000);
}

TEST(OpenmpLoopSteal, DeclinesWhereTheCounterServes) {
  rt::WorkShare w;
  EXPECT_FALSE(rt::steal_init(&w, 100, 1));             // one member: nobody to steal from
  EXPECT_FALSE(rt::steal_init(&w, 0, 2));               // no chunk
  EXPECT_FALSE(rt::steal_init(&w, 0x100000000ull, 2));  // more than 32-bit bounds hold
  EXPECT_EQ(w.steal, nullptr);
}

}  // namespace
