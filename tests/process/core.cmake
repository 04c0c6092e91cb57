# The core process tests: legacy modules with private pools, without the shim (the problem is
# there) and with it (preloaded, or linked into the host): one pool, a bounded thread count, the
# same checksums, nested calls that complete, foreign ThreadPool objects left alone, one guard
# flag. Each test is its own process; core_driver.py builds its environment from scratch, kills a
# hang after --timeout and checks the key=value lines the host prints (fixtures/host/host_cli.h).
#
# Numbers: each legacy pool is sized LEGACY_ET_NUM_THREADS=3 (a fixture knob), so two private pools
# mean exactly 1 + 2 + 2 = 5 threads; under the shim POOLSHIM_NUM_THREADS=2, so at most 2 + 1.
#
# Workers: pools=1 only compares the ThreadPool* each module sees. The workers.* keys prove where
# the WORK ran: each module records the threads other than its caller that ran its tasks
# (fixtures/host/scenarios.cpp, worker_report). workers.shared=1: every module's loops ran on
# worker threads and one worker ran loops of every module (the one pool); two private pools give
# disjoint sets (0); a pool whose run() degraded to serial gives none (workers.any=0).
# --via run sends the loops through ThreadPool::run directly instead of parallel_for: the two are
# separate exported surfaces, so each needs its own proof.

poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(core skipped SKIPPED "${_why}")
  return()
endif()

set(_core_driver ${CMAKE_CURRENT_LIST_DIR}/core_driver.py)
set(_core_lib ${PROJECT_BINARY_DIR}/lib)
set(_core_shim $<TARGET_FILE:poolshim>)
set(_core_work --calls 60 --items 64 --spin-ns 1000)
set(_core_legacy --env LEGACY_ET_NUM_THREADS=3)
set(_core_shared --preload ${_core_shim} --env POOLSHIM_NUM_THREADS=2 ${_core_legacy})
set(_core_two_pools --expect pools=2 --expect threads=5 --expect shim.loaded=0
  --expect workers.shared=0)
set(_core_one_pool --expect pools=1 --expect threads<=3 --expect shim.loaded=1)
set(_core_shared_workers --expect workers.shared=1 --expect workers.any=1)

# Each test: core_driver.py with its driver options, then `--` and the host's command line.
# TSAN: ThreadSanitizer runs it too (label tsan: the concurrent ones).
set(_core ${Python3_EXECUTABLE} ${_core_driver} --timeout 60)

set(_ab ${_core_lib}/module_a.so ${_core_lib}/module_b.so)

# One thread alternating between two modules (a GIL-holding Python thread).
poolshim_process_test(core alternating_two_pools_without_shim
  COMMAND ${_core} ${_core_legacy} ${_core_two_pools}
  -- $<TARGET_FILE:legacy_host> --scenario alternating ${_core_work} ${_ab})
poolshim_process_test(core alternating_one_pool_preload
  COMMAND ${_core} ${_core_shared} ${_core_one_pool} ${_core_shared_workers}
    --expect module.0.thread_count<=2 --expect module.1.thread_count<=2
  -- $<TARGET_FILE:legacy_host> --scenario alternating ${_core_work} ${_ab})
# The same loops through ThreadPool::run (not parallel_for): run() must be the shim's too.
poolshim_process_test(core run_path_two_pools_without_shim
  COMMAND ${_core} ${_core_legacy} ${_core_two_pools}
  -- $<TARGET_FILE:legacy_host> --scenario alternating --via run ${_core_work} ${_ab})
poolshim_process_test(core run_path_one_pool_preload
  COMMAND ${_core} ${_core_shared} ${_core_one_pool} ${_core_shared_workers}
  -- $<TARGET_FILE:legacy_host> --scenario alternating --via run ${_core_work} ${_ab})

# Two threads, one per module, at once: every call executed, none lost, still one pool.
poolshim_process_test(core concurrent_two_pools_without_shim
  COMMAND ${_core} ${_core_legacy} ${_core_two_pools}
  -- $<TARGET_FILE:legacy_host> --scenario concurrent ${_core_work} ${_ab})
poolshim_process_test(core concurrent_one_pool_preload TSAN
  COMMAND ${_core} ${_core_shared} ${_core_one_pool} ${_core_shared_workers}
  -- $<TARGET_FILE:legacy_host> --scenario concurrent ${_core_work} ${_ab})
poolshim_process_test(core concurrent_run_path_preload TSAN
  COMMAND ${_core} ${_core_shared} ${_core_one_pool} ${_core_shared_workers}
  -- $<TARGET_FILE:legacy_host> --scenario concurrent --via run ${_core_work} ${_ab})

# The older generation (torch::executorch::threadpool, run(const std::function&)) next to the
# current one: both get the one pool (pools=1 compares the ThreadPool* each module's code sees; the
# thread bound alone would also hold through the shim's pthreadpool surface).
poolshim_process_test(core old_generation_two_pools_without_shim
  COMMAND ${_core} ${_core_legacy} ${_core_two_pools}
  -- $<TARGET_FILE:legacy_host> --scenario alternating ${_core_work}
    ${_core_lib}/module_a.so ${_core_lib}/module_old.so)
poolshim_process_test(core old_generation_preload
  COMMAND ${_core} ${_core_shared} --expect pools=1 --expect threads<=3 --expect shim.loaded=1
    ${_core_shared_workers}
  -- $<TARGET_FILE:legacy_host> --scenario alternating ${_core_work}
    ${_core_lib}/module_a.so ${_core_lib}/module_old.so)

# Link-time interposition: the host links libpoolshim.so, no LD_PRELOAD.
poolshim_process_test(core linked_host_one_pool
  COMMAND ${_core} --env POOLSHIM_NUM_THREADS=2 ${_core_legacy} ${_core_one_pool}
    --expect linked.budget=2 ${_core_shared_workers}
  -- $<TARGET_FILE:legacy_host_linked> --scenario alternating ${_core_work} ${_ab})
poolshim_process_test(core linked_host_run_path
  COMMAND ${_core} --env POOLSHIM_NUM_THREADS=2 ${_core_legacy} ${_core_one_pool}
    --expect linked.budget=2 ${_core_shared_workers}
  -- $<TARGET_FILE:legacy_host_linked> --scenario alternating --via run ${_core_work} ${_ab})

# A task of module A calls module B's parallel_for (and the mixed generations): must complete.
poolshim_process_test(core nested_without_shim
  COMMAND ${_core} ${_core_legacy} ${_core_two_pools}
  -- $<TARGET_FILE:legacy_host> --scenario nested --calls 8 --items 16 --inner-items 8
    --spin-ns 1000 ${_ab})
poolshim_process_test(core nested_preload
  COMMAND ${_core} ${_core_shared} ${_core_one_pool}
  -- $<TARGET_FILE:legacy_host> --scenario nested --calls 8 --items 16 --inner-items 8
    --spin-ns 1000 ${_ab})
poolshim_process_test(core nested_old_in_current_preload
  COMMAND ${_core} ${_core_shared} --expect threads<=3
  -- $<TARGET_FILE:legacy_host> --scenario nested --calls 8 --items 16 --inner-items 8
    --spin-ns 1000 ${_core_lib}/module_a.so ${_core_lib}/module_old.so)
poolshim_process_test(core nested_current_in_old_preload
  COMMAND ${_core} ${_core_shared} --expect threads<=3
  -- $<TARGET_FILE:legacy_host> --scenario nested --calls 8 --items 16 --inner-items 8
    --spin-ns 1000 ${_core_lib}/module_old.so ${_core_lib}/module_a.so)

# A module that constructs ThreadPool objects of its own: they keep working, are never written
# to (private_intact=1, checked by the host), and the shared modules still share one pool.
poolshim_process_test(core private_pool_preload
  COMMAND ${_core} ${_core_shared} --expect module.0.private_intact=1 --expect pools=1
  -- $<TARGET_FILE:legacy_host> --scenario private ${_core_work}
    ${_core_lib}/module_private.so ${_core_lib}/module_a.so)
# detect_leaks=0: these tests are about memory errors in and around private pools; LeakSanitizer's
# tracer flaked with the modules' dynamic TLS.
poolshim_missing(_why LIBASAN)
if(_why)
  poolshim_process_test(core private_pool_asan_without_shim SKIPPED "${_why}")
  poolshim_process_test(core private_pool_asan_preload SKIPPED "${_why}")
else()
  set(_asan_modules ${_core_lib}/module_private_asan.so ${_core_lib}/module_a.so)
  poolshim_process_test(core private_pool_asan_without_shim
    COMMAND ${_core} --preload ${POOLSHIM_LIBASAN} ${_core_legacy}
      --expect module.0.private_intact=1 --env ASAN_OPTIONS=detect_leaks=0
    -- $<TARGET_FILE:legacy_host_asan> --scenario private ${_core_work} ${_asan_modules})
  # libasan must come first in the initial library list; the shim after it.
  poolshim_process_test(core private_pool_asan_preload
    COMMAND ${_core} --preload ${POOLSHIM_LIBASAN} ${_core_shared}
      --expect module.0.private_intact=1
      --expect pools=1 --env ASAN_OPTIONS=detect_leaks=0
    -- $<TARGET_FILE:legacy_host_asan> --scenario private ${_core_work} ${_asan_modules})
endif()

# NoThreadPoolGuard: one thread-local flag for the whole process under the shim.
poolshim_process_test(core guard_per_module_without_shim
  COMMAND ${_core} ${_core_legacy} --expect guard.other=0
  -- $<TARGET_FILE:legacy_host> --scenario guard ${_ab})
poolshim_process_test(core guard_shared_preload
  COMMAND ${_core} ${_core_shared} --expect guard.other=1 --expect pools=1
  -- $<TARGET_FILE:legacy_host> --scenario guard ${_ab})
poolshim_process_test(core guard_shared_old_and_current_preload
  COMMAND ${_core} ${_core_shared} --expect guard.other=1
  -- $<TARGET_FILE:legacy_host> --scenario guard ${_core_lib}/module_a.so
    ${_core_lib}/module_old.so)

# _unsafe_reset_threadpool in one thread while another runs loops: a size request, never a
# teardown under the other caller.
poolshim_process_test(core reset_under_concurrent_use_preload TSAN
  COMMAND ${_core} ${_core_shared} ${_core_one_pool}
  -- $<TARGET_FILE:legacy_host> --scenario reset --calls 40 --items 32 --spin-ns 1000 ${_ab})

# Quiet by default: preloaded without POOLSHIM_LOG, nothing on stderr (nor stdout: the driver
# rejects any stdout line that is not the host's key=value). With POOLSHIM_LOG=info, the
# redirection of each module is reported.
poolshim_process_test(core preload_is_silent
  COMMAND ${_core} ${_core_shared} ${_core_one_pool} --stderr-empty
  -- $<TARGET_FILE:legacy_host> --scenario alternating --calls 4 --items 8 --spin-ns 0 ${_ab})
poolshim_process_test(core preload_log_info_names_modules
  COMMAND ${_core} ${_core_shared} --env POOLSHIM_LOG=info ${_core_one_pool}
    --stderr-match "poolshim: executorch get_threadpool\\(\\) from .*module_a\\.so"
    --stderr-match "poolshim: pool started: 2 threads"
  -- $<TARGET_FILE:legacy_host> --scenario alternating --calls 4 --items 8 --spin-ns 0 ${_ab})

# CPython: two extensions each embedding the legacy pool, imported into one interpreter.
poolshim_missing(_why PYTHON_EXTENSIONS)
if(_why)
  foreach(_t python_two_pools_without_shim python_one_pool_preload python_run_path_preload)
    poolshim_process_test(core ${_t} SKIPPED "${_why}")
  endforeach()
else()
  set(_probe ${Python3_EXECUTABLE} ${POOLSHIM_PYTHON_PROBE} 40 64 1000)
  poolshim_process_test(core python_two_pools_without_shim
    COMMAND ${_core} --env PYTHONPATH=${POOLSHIM_PYTHON_FIXTURE_DIR} ${_core_legacy}
      --expect pools=2 --expect threads=5 --expect workers.shared=0
    -- ${_probe})
  poolshim_process_test(core python_one_pool_preload
    COMMAND ${_core} --env PYTHONPATH=${POOLSHIM_PYTHON_FIXTURE_DIR} ${_core_shared}
      --expect pools=1 --expect threads<=3 ${_core_shared_workers}
    -- ${_probe})
  poolshim_process_test(core python_run_path_preload
    COMMAND ${_core} --env PYTHONPATH=${POOLSHIM_PYTHON_FIXTURE_DIR} ${_core_shared}
      --expect pools=1 --expect threads<=3 ${_core_shared_workers}
    -- ${_probe} run)
endif()
