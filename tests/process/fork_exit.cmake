# Fork, exit and unload (issue 9, points 1, 5, 6; docs/design.md "Fork" and "Module lifetime").
# Every test runs under the preload through core_driver.py, which kills a hang after --timeout;
# the hosts also arm an alarm in every forked child, so one stuck child fails its round instead
# of hanging the test.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(fork_exit skipped SKIPPED "${_why}")
  return()
endif()

set(_fe_driver ${CMAKE_CURRENT_LIST_DIR}/core_driver.py)
set(_fe_shim $<TARGET_FILE:poolshim>)
set(_fe_lib ${PROJECT_BINARY_DIR}/lib)
set(_fe_env --preload ${_fe_shim} --env POOLSHIM_NUM_THREADS=2)

# Each test: core_driver.py with a watchdog of 60 s (more where a test says so) inside CTest's,
# 30 s longer; labels fork, and tsan (ThreadSanitizer runs it) but for a control run without the
# shim (the fixtures' own pools on Debian's uninstrumented libpthreadpool, whose races are not
# ours).
set(_fe ${Python3_EXECUTABLE} ${_fe_driver} --timeout 60)

# 100 rounds of fork after use, one test per surface the parent used; every child uses every
# surface. parallel=rounds: in every child a pool worker joined each pthreadpool and poolshim call
# (the pool works in the child, it did not fall back to serial).
foreach(_s et ptp api)
  poolshim_process_test(fork_exit fork_after_use_${_s} TSAN LABELS fork TIMEOUT 90
    COMMAND ${_fe} ${_fe_env} --expect rounds=100 --expect wrong=0 --expect hung=0
      --expect crashed=0 --expect parallel=100
    -- $<TARGET_FILE:fork_host> after-use-${_s} --rounds 100 ${_fe_lib}/module_a.so)
endforeach()
poolshim_process_test(fork_exit fork_during_call TSAN LABELS fork TIMEOUT 90
  COMMAND ${_fe} ${_fe_env} --expect rounds=100 --expect hung=0 --expect parallel=100
  -- $<TARGET_FILE:fork_host> during-call --rounds 100 ${_fe_lib}/module_a.so)
# These two depend on the pool's own fork hooks (core::pool_atfork_*) too.
poolshim_process_test(fork_exit fork_during_first_call TSAN LABELS fork TIMEOUT 90
  COMMAND ${_fe} ${_fe_env} --expect rounds=200 --expect hung=0 --expect parallel=200
  -- $<TARGET_FILE:fork_host> first-call --rounds 200 ${_fe_lib}/module_a.so)
# A fork that lands inside the shim's first-use initialisation, every time: a test hook of the
# host (poolshim_testing_hold_first_use, shim/base/first_use.h) holds the budget's, the busy
# count's or the ExecuTorch handle's once routine open while the main thread forks at a random
# delay; each child calls on every surface from two threads. 200 rounds here;
# bench/fork_first_use.sh runs 1000.
poolshim_process_test(fork_exit fork_inside_first_use_initialisation TSAN LABELS fork TIMEOUT 330
  COMMAND ${Python3_EXECUTABLE} ${_fe_driver} --timeout 300 --preload ${_fe_shim}
    --env POOLSHIM_NUM_THREADS=4 --expect rounds=200 --expect held=200
    --expect hung=0 --expect crashed=0 --expect parallel=200
  -- $<TARGET_FILE:fork_first_use_host> --rounds 200)
# A fork from inside a task, on a worker and on the caller; each child calls from two threads
# (peak of running items within the budget, every item once, no caller waits for another's
# call), alone and in a group whose ledger must show the child's share and return to 0. The group
# name is unique to this build tree (other trees may run the same tests at the same time).
string(MD5 _fe_tree "${PROJECT_BINARY_DIR}")
string(SUBSTRING "${_fe_tree}" 0 10 _fe_tree)
foreach(_m worker caller)
  poolshim_process_test(fork_exit fork_from_task_on_${_m} TSAN LABELS fork TIMEOUT 90
    COMMAND ${_fe} --preload ${_fe_shim} --env POOLSHIM_NUM_THREADS=4 --expect rounds=20
      --expect ok=20
    -- $<TARGET_FILE:fork_task_host> ${_m} --rounds 20)
  poolshim_process_test(fork_exit fork_from_task_on_${_m}_in_group TSAN LABELS fork TIMEOUT 90
    COMMAND ${_fe} --preload ${_fe_shim} --env POOLSHIM_NUM_THREADS=4
      --env POOLSHIM_GROUP=forktask.${_m}.${_fe_tree} --expect rounds=20 --expect ok=20
      --expect parent_ledger_wrong=0
    -- $<TARGET_FILE:fork_task_host> ${_m} --rounds 20)
endforeach()
poolshim_process_test(fork_exit fork_during_handle_churn TSAN LABELS fork TIMEOUT 90
  COMMAND ${_fe} ${_fe_env} --expect rounds=400 --expect hung=0 --expect parallel=400
  -- $<TARGET_FILE:fork_host> handle-churn --rounds 400 ${_fe_lib}/module_a.so)

# Python multiprocessing, fork start method: the fixture extensions (the tests' interpreter) and
# Debian's PyTorch on XNNPACK/QNNPACK (POOLSHIM_TORCH_PYTHON; skipped without torch).
set(_fe_mp ${CMAKE_CURRENT_LIST_DIR}/fork_multiprocessing.py)
poolshim_missing(_why PYTHON_EXTENSIONS)
if(_why)
  poolshim_process_test(fork_exit multiprocessing_fork_extensions SKIPPED "${_why}")
else()
  poolshim_process_test(fork_exit multiprocessing_fork_extensions TSAN LABELS fork TIMEOUT 90
    COMMAND ${_fe} ${_fe_env} --env PYTHONPATH=${POOLSHIM_PYTHON_FIXTURE_DIR}
      --env LEGACY_ET_NUM_THREADS=3
      --expect tasks=24 --expect correct=24 --expect parent_wrong=0
    -- ${Python3_EXECUTABLE} ${_fe_mp} ext)
endif()
set(_fe_torch_python ${POOLSHIM_TORCH_PYTHON})  # tests/CMakeLists.txt
if(EXISTS ${_fe_torch_python})
  poolshim_process_test(fork_exit multiprocessing_fork_torch TSAN LABELS fork TIMEOUT 180
    COMMAND ${Python3_EXECUTABLE} ${_fe_driver} --timeout 150 ${_fe_env}
      --skip-rc ${POOLSHIM_SKIP_RC} --expect tasks=24 --expect correct=24
      --expect parent_wrong=0
    -- ${_fe_torch_python} ${_fe_mp} torch)
else()
  poolshim_process_test(fork_exit multiprocessing_fork_torch SKIPPED
    "no interpreter at ${_fe_torch_python} (POOLSHIM_TORCH_PYTHON) to import torch")
endif()

# Module lifetime: lifetime_x and lifetime_y (same size, pool code 16 KiB apart) loaded in turn at
# one path, mostly at one base; every result right, and the base must repeat (else the host fails
# rather than pass vacuously). A stale (base, symbol) cache jumps into y's int3 padding: SIGTRAP.
set(_fe_lt ${_fe_lib}/lifetime_x.so ${_fe_lib}/lifetime_y.so)
foreach(_case without_shim preload preload_disable_executorch)
  set(_dir ${CMAKE_CURRENT_BINARY_DIR}/lifetime_${_case})
  file(MAKE_DIRECTORY ${_dir})
  set(_rounds 100)
  if(_case STREQUAL without_shim)
    set(_rounds 40)  # the legacy pools start and join their threads every round: slower
    set(_tsan "")  # a control: the fixtures' own pools
    set(_drv --env POOLSHIM_NUM_THREADS=2)
  elseif(_case STREQUAL preload)
    set(_tsan TSAN)
    set(_drv ${_fe_env})
  else()
    set(_tsan TSAN)
    set(_drv ${_fe_env} --env POOLSHIM_DISABLE=executorch)
  endif()
  poolshim_process_test(fork_exit unload_reload_same_base_${_case} ${_tsan} LABELS fork TIMEOUT 90
    COMMAND ${_fe} ${_drv} --expect rounds=${_rounds} --expect wrong=0
    -- $<TARGET_FILE:lifetime_host> ${_rounds} ${_dir} ${_fe_lt})
endforeach()

# Exit and unload (exit_host, fixtures/fork/exit_host.cpp).
# Pool calls after main returns (static destructor, atexit handlers, thread-local destructors of a
# module and of the host, on the ExecuTorch, pthreadpool and poolshim surfaces): each result is a
# checksum pair the driver compares, each must be printed, and main's status 7 must survive.
set(_fe_after_main)
foreach(_k host.tls_dtor.api host.tls_dtor.ptp exit_module.tls_dtor exit_module.atexit
    host.atexit.api host.atexit.ptp exit_module.static_dtor)
  list(APPEND _fe_after_main --expect ${_k}.expected!=0)
endforeach()
poolshim_process_test(fork_exit pool_calls_after_main TSAN LABELS fork TIMEOUT 90
  COMMAND ${_fe} ${_fe_env} --expect-rc 7 ${_fe_after_main}
  -- $<TARGET_FILE:exit_host> after-main ${_fe_lib}/exit_module.so)
# exit() while three threads are inside calls on every surface: 20 processes, each status 5.
poolshim_process_test(fork_exit exit_while_threads_in_calls TSAN LABELS fork TIMEOUT 90
  COMMAND ${_fe} ${_fe_env} --expect rounds=20 --expect exit_status_kept=20
  -- $<TARGET_FILE:exit_host> exit-busy 20 ${_fe_lib}/module_a.so)
# dlclose of a module that used the shared pool (its static destructor calls the pool) while
# another module keeps using it: 50 unloads, every destructor ran and was right.
poolshim_process_test(fork_exit dlclose_while_pool_in_use TSAN LABELS fork TIMEOUT 90
  COMMAND ${_fe} ${_fe_env} --expect rounds=50 --expect unload_dtor_calls=50
    --expect unload_dtor_wrong=0
    --expect wrong=0 --expect thread_calls_wrong=0
  -- $<TARGET_FILE:exit_host> dlclose-busy 50 ${_fe_lib}/module_b.so ${_fe_lib}/exit_module.so)
# A fork's child of a host that never asked for a pool makes at most one page of the shim's
# writable memory its own: the fork locks' page (base/fork_hooks.h). The other handlers store only
# what differs, and the locks share that page. A test of pages, not of races: no TSAN run, and
# not in the ASan build (POOLSHIM_ASAN_INCOMPATIBLE in tests/CMakeLists.txt says why).
poolshim_process_test(fork_exit child_of_a_fork_copies_one_page_of_the_shim LABELS fork
  COMMAND ${_fe} --preload ${_fe_shim} --expect status=ok
  -- $<TARGET_FILE:fork_pages_host> --forks 3)
