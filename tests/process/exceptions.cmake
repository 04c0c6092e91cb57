# C++ exceptions escaping legacy tasks under the preload (issue 9, point 3;
# docs/pthreadpool-coverage.md, "Exceptions and unwinding"): module_throw's ThreadPool::run and parallel_for tasks throw on the calling
# thread, on a pool thread, at the first/last/middle item and at every item. The exception must
# reach the module's caller, the NoThreadPoolGuard flag must be clear afterwards, and another
# thread's work must complete (same checksum) while this one keeps throwing; a hang is killed by
# the driver's timeout and fails the test. (Without the shim the legacy pool's Debian engine
# terminates the process when a worker throws: there is no "without" twin.)
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(exceptions skipped SKIPPED "${_why}")
  return()
endif()
set(_exc_expect)
foreach(_via run parallel_for)
  foreach(_mode first last middle caller worker every)
    list(APPEND _exc_expect --expect exc.${_via}.${_mode}=1 --expect exc.${_via}.${_mode}.ran_ok=1)
  endforeach()
endforeach()
poolshim_process_test(exceptions legacy_run_and_parallel_for
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/core_driver.py --timeout 60
    --preload $<TARGET_FILE:poolshim> --env POOLSHIM_NUM_THREADS=2 --env LEGACY_ET_NUM_THREADS=2
    ${_exc_expect} --expect exc.run.returned_ok=1 --expect exc.parallel_for.returned_ok=1
    --expect guard.main=0 --expect guard.other=0 --expect guard.main_after=0
    --expect thrown_while_other=40
    -- $<TARGET_FILE:exception_host> ${PROJECT_BINARY_DIR}/lib/module_throw.so)
