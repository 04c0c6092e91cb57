# POOLSHIM_GROUP: a budget shared by the processes of a group (docs/budget.md). group_driver.py
# starts real group_host processes (linked against libpoolshim.so, driving the C API) and checks
# the info API, `poolshim info`, stderr and (bound_sampled) the busy threads it samples from
# /proc: shares of samples, label timing (tests/test_rules.cmake), not in the README's test
# command.
poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_process_test(group skipped SKIPPED "${_why}")
  return()
endif()
add_dependencies(group_host poolshim_cli)
foreach(_scenario bound bound-sampled kill foreign garbage)
  string(REPLACE "-" "_" _name ${_scenario})
  set(_timing "")
  if(_scenario STREQUAL "bound-sampled")
    set(_timing TIMING)
  endif()
  poolshim_process_test(group ${_name} ${_timing}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/group_driver.py
      --bin $<TARGET_FILE_DIR:group_host> ${_scenario})
endforeach()
