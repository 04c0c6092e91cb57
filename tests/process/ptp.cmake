# pthreadpool surface process tests (issue 3): the fixture modules of
# tests/fixtures/ptp_modules.cmake under ptp_host, without and with LD_PRELOAD=libpoolshim.so.
# Each test is its own pair of processes; ptp_driver.py documents the scenarios.

poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(ptp skipped SKIPPED "${_why}")
  return()
endif()

foreach(_scenario one_pool hidden executorch disabled)
  poolshim_process_test(ptp ${_scenario} TIMEOUT 150 LABELS pthreadpool
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/ptp_driver.py ${_scenario}
      --shim $<TARGET_FILE:poolshim> --host $<TARGET_FILE:ptp_host>
      --modules ${POOLSHIM_PTP_FIXTURE_DIR} --timeout 60)
endforeach()
