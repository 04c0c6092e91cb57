# Invisible when unused (tests/process/invisible.py): system programs that never ask for a pool
# give byte-identical stdout, stderr and exit status under LD_PRELOAD of the shim, with no extra
# thread or file descriptor.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_skipped_test(process.invisible.skipped "${_why}")
  return()
endif()
add_test(NAME process.invisible.system_programs
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/invisible.py --shim $<TARGET_FILE:poolshim>)
set_tests_properties(process.invisible.system_programs PROPERTIES TIMEOUT 300 LABELS "process;invisible")
