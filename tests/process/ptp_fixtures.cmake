# pthreadpool surface process tests (issue 3): the fixture modules of
# tests/fixtures/ptp_modules.cmake under ptp_host, without and with LD_PRELOAD=libpoolshim.so.
# Each test is its own pair of processes; ptp_driver.py documents the scenarios.

poolshim_missing(_why PYTHON)
if(_why)
  poolshim_skipped_test(process.ptp.skipped "${_why}")
  return()
endif()

foreach(_scenario one_pool hidden executorch disabled)
  add_test(NAME process.ptp.${_scenario}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/ptp_driver.py ${_scenario}
      --shim $<TARGET_FILE:poolshim> --host $<TARGET_FILE:ptp_host>
      --modules ${POOLSHIM_PTP_FIXTURE_DIR} --timeout 60)
  set_tests_properties(process.ptp.${_scenario} PROPERTIES TIMEOUT 150 LABELS "process;pthreadpool")
endforeach()
