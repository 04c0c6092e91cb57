# Invisible when unused (tests/process/invisible.py): system programs that never ask for a pool
# give byte-identical stdout, stderr and exit status under LD_PRELOAD of the shim, with no extra
# thread or file descriptor, and a C host finds the heap empty at its main (nothing allocated while
# the shim was loaded).
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(invisible skipped SKIPPED "${_why}")
  return()
endif()
poolshim_process_test(invisible system_programs TIMEOUT 300
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/invisible.py --shim $<TARGET_FILE:poolshim>
    --heap-host $<TARGET_FILE:heap_at_main>)
