# Hostile input to `poolshim audit` (issue 9, item 9): broken ELF files, special files, symlink
# loops, unreadable files, hostile wheels, processes that exit during the scan, names that are not
# UTF-8, and a 2 GiB member read with bounded memory. Driver: audit_hostile.py.

poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_skipped_test(process.cli.hostile.skipped "${_why}")
  return()
endif()

set(_hostile ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/audit_hostile.py
  --poolshim $<TARGET_FILE:poolshim_cli> --module ${POOLSHIM_VARIANT_DIR}/variant_default.so
  --python ${Python3_EXECUTABLE})
foreach(_part files special archives process names big)
  add_test(NAME process.cli.hostile_${_part} COMMAND ${_hostile} ${_part})
  set_tests_properties(process.cli.hostile_${_part} PROPERTIES TIMEOUT 300 LABELS "process;cli;hostile")
endforeach()
