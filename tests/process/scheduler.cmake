# The scheduler's process tests (fixtures/scheduler/):
#  - lock order: module A redirected, module B's pool out of the shim's reach (hidden visibility,
#    -Bsymbolic, or defined in the executable). B's run() holds B's mutex while its pthreadpool
#    call lands on the shim; A's tasks call B's run(). A pool that makes one caller wait for
#    another's call hangs here. Each runs without the shim too (it must finish there as well).
#  - stress: 8 callers on mixed surfaces with resizes every millisecond, linked against the shim.
# Without the shim, two private pools spin against each other on 2 cores: fewer rounds there.
# The hosts watch themselves (alarm) so that a hang fails instead of blocking; TIMEOUT backs it.
# A verdict that depends on timing or a rate (CPU time against wall time, where the kernel ran a
# thread, the share of calls patient or keeping their items) is a test of its own with TIMING
# (label timing: not in the README's test command; `scripts/test.sh -L timing` runs them), next
# to the test of what the same host checks regardless of timing.
set(_lib ${PROJECT_BINARY_DIR}/lib)
set(_variants ${PROJECT_BINARY_DIR}/lib/variants)
set(_shim_env LD_PRELOAD=$<TARGET_FILE:poolshim> POOLSHIM_NUM_THREADS=2)

# The hosts print status=ok when they pass (PASS_REGULAR_EXPRESSION). ThreadSanitizer runs the
# runs under the shim only (TSAN): without it, the fixtures' own pools run on Debian's
# uninstrumented libpthreadpool, where TSan reports races that are not ours.
set(_env ${CMAKE_COMMAND} -E env)
set(_ok PASS_REGULAR_EXPRESSION "status=ok")

foreach(_b hidden symbolic)
  poolshim_process_test(scheduler lock_order_${_b}_without_shim ${_ok}
    COMMAND ${_env} LEGACY_ET_NUM_THREADS=2 $<TARGET_FILE:lock_order_host> --rounds 20
      ${_lib}/module_a.so ${_variants}/variant_${_b}.so)
  poolshim_process_test(scheduler lock_order_${_b}_preload TSAN ${_ok}
    COMMAND ${_env} ${_shim_env} $<TARGET_FILE:lock_order_host> ${_lib}/module_a.so
      ${_variants}/variant_${_b}.so)
endforeach()
poolshim_process_test(scheduler lock_order_executable_without_shim ${_ok}
  COMMAND ${_env} LEGACY_ET_NUM_THREADS=2 $<TARGET_FILE:lock_order_exe> --rounds 20
    ${_lib}/module_a.so)
poolshim_process_test(scheduler lock_order_executable_preload TSAN ${_ok}
  COMMAND ${_env} ${_shim_env} $<TARGET_FILE:lock_order_exe> ${_lib}/module_a.so)

poolshim_process_test(scheduler stress_mixed_surfaces TSAN ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=3 $<TARGET_FILE:stress_host> ${_lib}/module_a.so
    ${_lib}/module_b.so)

# The width promise: a resize between a caller's read and its call (and the shim's own reads
# just before the call) never lets a thread index reach past the width read (width_host).
foreach(_m ptp-dynamic et-pthreadpool native)
  poolshim_process_test(scheduler width_promise_${_m} TSAN ${_ok}
    COMMAND ${_env} LD_PRELOAD=$<TARGET_FILE:poolshim> POOLSHIM_NUM_THREADS=8
      $<TARGET_FILE:width_host> ${_m})
endforeach()

# A task that ends its worker (pthread_exit): the call returns with every other item run once,
# and later calls get a worker again (unwind_exit). Two callers keep the budget busy and turn the
# worker away: every item of their calls runs once (unwind_idle); timed, the worker sleeps: its
# CPU time stays a small share of the wall time (unwind_idle_worker_sleeps).
# A patient call whose first item (the caller's) blocks until its second has run: the one worker
# joins it late, and the call completes (patience_host).
poolshim_process_test(scheduler patient_call_blocked_first_item TSAN ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:patience_host>)
# A patient call that turns out long (64 items of 2 us): the worker that joins it takes half
# of what its caller has not started at once, though the caller's run never stalls
# (patience_host long). Timing: it needs short calls that their caller ran alone in under 4000
# ticks (core/prediction.h, kOneRunTicks) and a caller not preempted for 50 us (kStallNs).
poolshim_process_test(scheduler patient_call_turned_long_is_shared TSAN TIMING ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:patience_host> long)

# A host that runs a thread of its own before its first call: the barrier's registration (a
# grace period of milliseconds) is made by the worker, not the caller. A caller kept on one CPU,
# waking its worker for every call: every item runs once and the pool's threads keep their masks
# (pinned_caller_keeps_worker_masks); timed, the worker runs its items on another CPU in at least
# 9 of 10 joined calls (woken_worker_leaves_callers_cpu) (placement_host).
poolshim_process_test(scheduler barrier_registered_by_worker TSAN ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 POOLSHIM_LOG=debug $<TARGET_FILE:placement_host> barrier)
poolshim_process_test(scheduler pinned_caller_keeps_worker_masks TSAN ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:placement_host> masks)
poolshim_process_test(scheduler woken_worker_leaves_callers_cpu TSAN TIMING ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:placement_host> placement)

poolshim_process_test(scheduler unwind_exit TSAN ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:unwind_host> exit)
# The same from a C host, which has no libgcc_s until that first unwinding: the shim opens it then
# (lifecycle/unwinder_on_demand.cpp), and a host thread that exits inside its own call ends.
poolshim_process_test(scheduler unwind_c_host_opens_unwinder TSAN ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:unwind_c_host>)
poolshim_process_test(scheduler unwind_idle TSAN ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:unwind_host> idle)
poolshim_process_test(scheduler unwind_idle_worker_sleeps TSAN TIMING ${_ok}
  COMMAND ${_env} POOLSHIM_NUM_THREADS=2 $<TARGET_FILE:unwind_host> idle-cpu)

# A partial spawn failure (spawn_fail_host: its pthread_create fails after 3 threads): the pool
# runs with 3 of 7 workers, one warning line says so (also at POOLSHIM_LOG=warn, which once
# printed one per call), and the failing pthread_create is retried with backoff (about 10 times
# in 1000 calls), never on every call.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(scheduler partial_spawn_failure_decided_once SKIPPED "${_why}")
else()
  poolshim_process_test(scheduler partial_spawn_failure_decided_once TIMEOUT 90
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/core_driver.py --timeout 60
      --preload $<TARGET_FILE:poolshim> --env POOLSHIM_NUM_THREADS=8 --env POOLSHIM_LOG=warn
      --expect workers_started=3 --expect workers_wanted=7 --expect attempts<=16 --expect wrong=0
      --stderr-match "\\A(?![\\s\\S]*pthread_create[\\s\\S]*pthread_create)"
      --stderr-match "^poolshim: warning: degraded: 3 of 7 worker threads started \\(pthread_create failed: EAGAIN"
      -- $<TARGET_FILE:spawn_fail_host>)
endif()

# Degraded mode: no worker thread can start (RLIMIT_NPROC of 1 for an unprivileged user). The
# calls still run (serially, correct checksums), one warning says why, and the pool reports 1.
# The host runs as nobody from copies of itself, its module and the shim (core_driver.py
# --as-user: the build tree may be in a folder nobody cannot traverse); prlimit lowers the limit
# after the switch, in nobody's own process. Not root, or no setpriv: the driver reports a skip.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(scheduler degraded_when_no_thread_can_start SKIPPED "${_why}")
else()
  poolshim_process_test(scheduler degraded_when_no_thread_can_start TIMEOUT 90
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/core_driver.py --timeout 60
      --preload $<TARGET_FILE:poolshim> --env POOLSHIM_NUM_THREADS=2
      --expect shim.pool_size=1 --expect module.0.thread_count=1
      --stderr-match "^poolshim: warning: cannot start worker threads \\(pthread_create failed"
      --as-user nobody
      -- prlimit --nproc=1:1
      $<TARGET_FILE:legacy_host> --scenario alternating --calls 4 --items 8 --spin-ns 0
      ${_lib}/module_a.so)
endif()

# The scheduler's counts (core/counters.h, a POOLSHIM_COUNTERS build: the RelWithDebInfo and
# Debug test builds), on 2 CPUs with 16 and 64 threads: oversubscribed, counting only, never
# timing (counters_host); where the share counted depends on how the kernel runs the threads
# (patience, affinity), the test has TIMING. Shared-line RMWs per call and per join stay below a constant that does
# not depend on the width (measured: 11-12 per call, 6-16 per join, at widths 2, 16 and 64; a
# call whose run stalls after the caller withdrew it is published once more, 4-5 RMWs, which on
# a loaded machine can be most calls at width 64: the caller's bound leaves room for that; a
# worker's count per join also holds the idle loops' RMWs of the workers woken in vain, which in
# the ASan+UBSan build, with 0.7 joins per call since the caller withdraws its call early, read
# 20-21 per join at widths 16 and 64: the worker's bound is 32, still the same at every width);
# 8 callers released together on a sleeping pool of 16 never have more wake-ups in flight than
# the 8 threads that can join (plus one: counters_host.cpp says why), none finds no room, and at
# most twice those 8 are woken in vain in a round. TIMING: identical calls keep their lanes on
# their threads (every lane joined: --gather) and, at width 2, their items, in 90% of the calls.
if(POOLSHIM_COUNTERS)
  # counters_host with a budget of POOLSHIM_NUM_THREADS; status=ok passes, status=fail fails.
  set(_counters TIMEOUT 240 ${_ok} FAIL_REGULAR_EXPRESSION "status=fail")
  set(_counters_host $<TARGET_FILE:counters_host>)
  foreach(_w 2 16 64)
    poolshim_process_test(scheduler counters_shared_rmw_width_${_w} ${_counters}
      COMMAND ${_env} POOLSHIM_NUM_THREADS=${_w} ${_counters_host} calls --width ${_w} --calls 1000
        --max-caller-shared 24 --max-worker-shared 32)
  endforeach()
  poolshim_process_test(scheduler counters_herd_8_callers_pool_16 ${_counters}
    COMMAND ${_env} POOLSHIM_NUM_THREADS=16 ${_counters_host} herd --callers 8 --rounds 20)
  # Patience (core/publish.h): short identical calls that ran on their caller alone are published
  # patient and left to it (measured: 100% patient, 0.00 joins per call); the same calls with
  # long items (about 25 us each) are not patient again after the first (measured: 0.5%), even
  # when a noisy host keeps their worker asleep and they run on their caller alone. TIMING:
  # patience follows the calls' measured durations, and needs an awake worker.
  poolshim_process_test(scheduler counters_patience_short_calls_left_to_caller TIMING ${_counters}
    COMMAND ${_env} POOLSHIM_NUM_THREADS=2 ${_counters_host} calls --width 2 --range 2 --work 0
      --calls 2000 --min-patient 50 --max-joins-per-call 0.5 --then-work 20000 --then-calls 200
      --max-then-patient 10)
  poolshim_process_test(scheduler counters_affinity_width_2 TIMING ${_counters}
    COMMAND ${_env} POOLSHIM_NUM_THREADS=2 ${_counters_host} calls --width 2 --calls 1000
      --min-affinity 90 --min-lane-affinity 90)
  foreach(_w 2 16)
    poolshim_process_test(scheduler counters_lane_affinity_width_${_w} TIMING ${_counters}
      COMMAND ${_env} POOLSHIM_NUM_THREADS=${_w} ${_counters_host} calls --width ${_w} --calls 300
        --gather 1 --min-lane-affinity 90)
  endforeach()
endif()
