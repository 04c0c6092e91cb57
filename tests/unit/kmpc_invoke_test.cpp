// psk_invoke_microtask (abi/openmp/kmpc/invoke.cpp) calls a region's body with its two ids and
// any number of shared-variable pointers: four in registers, the rest on the stack, with the
// stack aligned for the callee (a body that needs 16-byte alignment would fault otherwise).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "abi/openmp/kmpc/kmpc.h"

namespace {

int32_t g_gtid, g_btid;
std::vector<void*> g_seen;
uintptr_t g_stack_misalignment;

void note(int32_t* gtid, int32_t* btid) {
  g_gtid = *gtid;
  g_btid = *btid;
  g_stack_misalignment = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) % 16;
}

void body0(int32_t* g, int32_t* b) { note(g, b); }
void body1(int32_t* g, int32_t* b, void* a0) {
  note(g, b);
  g_seen = {a0};
}
void body4(int32_t* g, int32_t* b, void* a0, void* a1, void* a2, void* a3) {
  note(g, b);
  g_seen = {a0, a1, a2, a3};
}
void body5(int32_t* g, int32_t* b, void* a0, void* a1, void* a2, void* a3, void* a4) {
  note(g, b);
  g_seen = {a0, a1, a2, a3, a4};
}
void body6(int32_t* g, int32_t* b, void* a0, void* a1, void* a2, void* a3, void* a4, void* a5) {
  note(g, b);
  g_seen = {a0, a1, a2, a3, a4, a5};
}
void body11(int32_t* g, int32_t* b, void* a0, void* a1, void* a2, void* a3, void* a4, void* a5,
            void* a6, void* a7, void* a8, void* a9, void* a10) {
  note(g, b);
  g_seen = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10};
}

kmpc_micro as_micro(void* f) { return reinterpret_cast<kmpc_micro>(f); }

void check(void* body, int32_t argc) {
  std::vector<void*> args;
  for (int32_t i = 0; i < 16; ++i) args.push_back(reinterpret_cast<void*>(uintptr_t{0x1000} + i));
  int32_t gtid = 7, btid = 3 + argc;
  g_seen.clear();
  g_gtid = g_btid = -1;
  psk_invoke_microtask(as_micro(body), &gtid, &btid, argc, args.data());
  EXPECT_EQ(g_gtid, 7) << argc;
  EXPECT_EQ(g_btid, 3 + argc) << argc;
  ASSERT_EQ(g_seen.size(), static_cast<size_t>(argc));
  for (int32_t i = 0; i < argc; ++i) EXPECT_EQ(g_seen[i], args[i]) << argc << " " << i;
  // A frame pointer is 16-byte aligned in a callee entered with an aligned stack (it is the
  // stack pointer after the return address and the saved rbp: 16 bytes below the call's rsp).
  EXPECT_EQ(g_stack_misalignment, 0u) << argc;
}

TEST(KmpcInvoke, EveryArgumentInPlaceAndTheStackAligned) {
  check(reinterpret_cast<void*>(&body0), 0);
  check(reinterpret_cast<void*>(&body1), 1);
  check(reinterpret_cast<void*>(&body4), 4);
  check(reinterpret_cast<void*>(&body5), 5);
  check(reinterpret_cast<void*>(&body6), 6);
  check(reinterpret_cast<void*>(&body11), 11);
}

}  // namespace
