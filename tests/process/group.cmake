# POOLSHIM_GROUP: a budget shared by the processes of a group (docs/budget.md). group_driver.py
# starts real group_host processes (linked against libpoolshim.so, driving the C API) and checks
# the busy threads it samples from /proc, the info API, `poolshim info` and stderr.
poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_process_test(group skipped SKIPPED "${_why}")
  return()
endif()
foreach(_scenario bound kill foreign garbage)
  poolshim_process_test(group ${_scenario}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/group_driver.py
      --bin $<TARGET_FILE_DIR:group_host> ${_scenario})
  add_dependencies(group_host poolshim_cli)
endforeach()
