# Hostile input to `poolshim audit` (issue 9, item 9): broken ELF files, special files, symlink
# loops, unreadable files, hostile wheels, processes that exit during the scan, names that are not
# UTF-8, and a 2 GiB member read with bounded memory. Driver: audit_hostile.py.

poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_process_test(audit_hostile skipped SKIPPED "${_why}")
  return()
endif()

set(_hostile ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/audit_hostile.py
  --poolshim $<TARGET_FILE:poolshim_cli> --module ${POOLSHIM_VARIANT_DIR}/variant_default.so
  --python ${Python3_EXECUTABLE})
foreach(_part files special archives process names big)
  poolshim_process_test(audit_hostile ${_part} COMMAND ${_hostile} ${_part} TIMEOUT 300
    LABELS cli hostile)
endforeach()
