// Every parallelize_* and compute_* function of the pthreadpool API as a HeaderCase
// (pthreadpool_testing.h): its dimensions, which are tiled or dynamic, where uarch_index and
// thread_index sit among the task's arguments, and a call on a Shape that records every task
// call. Used by the overflow and progress tests.
#pragma once

#include "pthreadpool_testing.h"

namespace ptp_test {

// Workers sleep right after each call: these tests keep engines of up to 4 threads alive on 2
// CPUs, whose idle workers would otherwise spin on the CPUs the next call needs.
constexpr uint32_t kCaseFlags = PTHREADPOOL_FLAG_YIELD_WORKERS;

inline const HeaderCase kAllCases[] = {
    // 1-D
    PTP_CASE(parallelize_1d, 1, 0, 0, -1, -1, &record<S>, r, R(0), kCaseFlags),
    PTP_CASE(parallelize_1d_with_thread, 1, 0, 0, -1, 0, &record<S, S>, r, R(0), kCaseFlags),
    PTP_CASE(parallelize_1d_with_uarch, 1, 0, 0, 0, -1, &record<U, S>, r, UA, R(0), kCaseFlags),
    PTP_CASE(parallelize_1d_tile_1d, 1, 1, 0, -1, -1, &record<S, S>, r, R(0), T(0), kCaseFlags),
    PTP_CASE(parallelize_1d_tile_1d_dynamic, 1, 1, 1, -1, -1, &record<S, S>, r, R(0), T(0),
             kCaseFlags),
    PTP_CASE(parallelize_1d_tile_1d_dynamic_with_thread, 1, 1, 1, -1, 0, &record<U, S, S>, r, R(0),
             T(0), kCaseFlags),
    PTP_CASE(parallelize_1d_tile_1d_dynamic_with_uarch_with_thread, 1, 1, 1, 0, 1,
             &record<U, S, S, S>, r, UA, R(0), T(0), kCaseFlags),
    // 2-D
    PTP_CASE(parallelize_2d, 2, 0, 0, -1, -1, &record<S, S>, r, R(0), R(1), kCaseFlags),
    PTP_CASE(parallelize_2d_with_thread, 2, 0, 0, -1, 0, &record<S, S, S>, r, R(0), R(1),
             kCaseFlags),
    PTP_CASE(parallelize_2d_tile_1d, 2, 2, 0, -1, -1, &record<S, S, S>, r, R(0), R(1), T(1),
             kCaseFlags),
    PTP_CASE(parallelize_2d_tile_1d_with_uarch, 2, 2, 0, 0, -1, &record<U, S, S, S>, r, UA, R(0),
             R(1), T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_1d_with_uarch_with_thread, 2, 2, 0, 0, 1, &record<U, S, S, S, S>,
             r, UA, R(0), R(1), T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_1d_dynamic, 2, 2, 1, -1, -1, &record<S, S, S>, r, R(0), R(1), T(1),
             kCaseFlags),
    PTP_CASE(parallelize_2d_tile_1d_dynamic_with_thread, 2, 2, 1, -1, 0, &record<U, S, S, S>, r,
             R(0), R(1), T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_1d_dynamic_with_uarch_with_thread, 2, 2, 1, 0, 1,
             &record<U, S, S, S, S>, r, UA, R(0), R(1), T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_2d, 2, 3, 0, -1, -1, &record<S, S, S, S>, r, R(0), R(1), T(0),
             T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_2d_with_uarch, 2, 3, 0, 0, -1, &record<U, S, S, S, S>, r, UA, R(0),
             R(1), T(0), T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_2d_dynamic, 2, 3, 2, -1, -1, &record<S, S, S, S>, r, R(0), R(1),
             T(0), T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_2d_dynamic_with_uarch, 2, 3, 2, 0, -1, &record<U, S, S, S, S>, r,
             UA, R(0), R(1), T(0), T(1), kCaseFlags),
    PTP_CASE(parallelize_2d_tile_2d_dynamic_with_thread, 2, 3, 2, -1, 0, &record<U, S, S, S, S>, r,
             R(0), R(1), T(0), T(1), kCaseFlags),
    // 3-D
    PTP_CASE(parallelize_3d, 3, 0, 0, -1, -1, &record<S, S, S>, r, R(0), R(1), R(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_1d, 3, 4, 0, -1, -1, &record<S, S, S, S>, r, R(0), R(1), R(2),
             T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_1d_with_thread, 3, 4, 0, -1, 0, &record<S, S, S, S, S>, r, R(0),
             R(1), R(2), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_1d_with_uarch, 3, 4, 0, 0, -1, &record<U, S, S, S, S>, r, UA, R(0),
             R(1), R(2), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_1d_with_uarch_with_thread, 3, 4, 0, 0, 1,
             &record<U, S, S, S, S, S>, r, UA, R(0), R(1), R(2), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_1d_dynamic, 3, 4, 1, -1, -1, &record<S, S, S, S>, r, R(0), R(1),
             R(2), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_1d_dynamic_with_thread, 3, 4, 1, -1, 0, &record<U, S, S, S, S>, r,
             R(0), R(1), R(2), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_1d_dynamic_with_uarch_with_thread, 3, 4, 1, 0, 1,
             &record<U, S, S, S, S, S>, r, UA, R(0), R(1), R(2), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_2d, 3, 6, 0, -1, -1, &record<S, S, S, S, S>, r, R(0), R(1), R(2),
             T(1), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_2d_with_uarch, 3, 6, 0, 0, -1, &record<U, S, S, S, S, S>, r, UA,
             R(0), R(1), R(2), T(1), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_2d_dynamic, 3, 6, 2, -1, -1, &record<S, S, S, S, S>, r, R(0), R(1),
             R(2), T(1), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_2d_dynamic_with_uarch, 3, 6, 2, 0, -1, &record<U, S, S, S, S, S>,
             r, UA, R(0), R(1), R(2), T(1), T(2), kCaseFlags),
    PTP_CASE(parallelize_3d_tile_2d_dynamic_with_thread, 3, 6, 2, -1, 0, &record<U, S, S, S, S, S>,
             r, R(0), R(1), R(2), T(1), T(2), kCaseFlags),
    // 4-D to 6-D
    PTP_CASE(parallelize_4d, 4, 0, 0, -1, -1, &record<S, S, S, S>, r, R(0), R(1), R(2), R(3),
             kCaseFlags),
    PTP_CASE(parallelize_4d_tile_1d, 4, 8, 0, -1, -1, &record<S, S, S, S, S>, r, R(0), R(1), R(2),
             R(3), T(3), kCaseFlags),
    PTP_CASE(parallelize_4d_tile_2d, 4, 12, 0, -1, -1, &record<S, S, S, S, S, S>, r, R(0), R(1),
             R(2), R(3), T(2), T(3), kCaseFlags),
    PTP_CASE(parallelize_4d_tile_2d_with_uarch, 4, 12, 0, 0, -1, &record<U, S, S, S, S, S, S>, r,
             UA, R(0), R(1), R(2), R(3), T(2), T(3), kCaseFlags),
    PTP_CASE(parallelize_4d_tile_2d_dynamic, 4, 12, 2, -1, -1, &record<S, S, S, S, S, S>, r, R(0),
             R(1), R(2), R(3), T(2), T(3), kCaseFlags),
    PTP_CASE(parallelize_4d_tile_2d_dynamic_with_uarch, 4, 12, 2, 0, -1,
             &record<U, S, S, S, S, S, S>, r, UA, R(0), R(1), R(2), R(3), T(2), T(3), kCaseFlags),
    PTP_CASE(parallelize_5d, 5, 0, 0, -1, -1, &record<S, S, S, S, S>, r, R(0), R(1), R(2), R(3),
             R(4), kCaseFlags),
    PTP_CASE(parallelize_5d_tile_1d, 5, 16, 0, -1, -1, &record<S, S, S, S, S, S>, r, R(0), R(1),
             R(2), R(3), R(4), T(4), kCaseFlags),
    PTP_CASE(parallelize_5d_tile_2d, 5, 24, 0, -1, -1, &record<S, S, S, S, S, S, S>, r, R(0), R(1),
             R(2), R(3), R(4), T(3), T(4), kCaseFlags),
    PTP_CASE(parallelize_6d, 6, 0, 0, -1, -1, &record<S, S, S, S, S, S>, r, R(0), R(1), R(2), R(3),
             R(4), R(5), kCaseFlags),
    PTP_CASE(parallelize_6d_tile_1d, 6, 32, 0, -1, -1, &record<S, S, S, S, S, S, S>, r, R(0), R(1),
             R(2), R(3), R(4), R(5), T(5), kCaseFlags),
    PTP_CASE(parallelize_6d_tile_2d, 6, 48, 0, -1, -1, &record<S, S, S, S, S, S, S, S>, r, R(0),
             R(1), R(2), R(3), R(4), R(5), T(4), T(5), kCaseFlags),
    // compute_* (every dimension of the *_tiled ones is tiled)
    PTP_CASE(compute_1d, 1, 0, 0, -1, -1, &record<S>, r, R(0)),
    PTP_CASE(compute_1d_tiled, 1, 1, 0, -1, -1, &record<S, S>, r, R(0), T(0)),
    PTP_CASE(compute_2d, 2, 0, 0, -1, -1, &record<S, S>, r, R(0), R(1)),
    PTP_CASE(compute_2d_tiled, 2, 3, 0, -1, -1, &record<S, S, S, S>, r, R(0), R(1), T(0), T(1)),
    PTP_CASE(compute_3d_tiled, 3, 7, 0, -1, -1, &record<S, S, S, S, S, S>, r, R(0), R(1), R(2),
             T(0), T(1), T(2)),
    PTP_CASE(compute_4d_tiled, 4, 15, 0, -1, -1, &record<S, S, S, S, S, S, S, S>, r, R(0), R(1),
             R(2), R(3), T(0), T(1), T(2), T(3)),
};

}  // namespace ptp_test
