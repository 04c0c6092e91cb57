# `poolshim audit` against reality: the build variants of tests/fixtures/variants_elf.cmake are
# judged by audit (files and the zip wheel), then loaded under LD_PRELOAD by a probe that reports
# which pool each module's code really uses. A module called unreachable must keep its own pool,
# one called redirected must share the shim's (elf_predictions.py). Each test is its own process
# tree with an environment built from scratch by the driver.

poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_process_test(elf skipped SKIPPED "${_why}")
  return()
endif()

set(_elf_driver ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/elf_predictions.py)
set(_elf_common --poolshim $<TARGET_FILE:poolshim_cli> --shim $<TARGET_FILE:poolshim>
  --probe $<TARGET_FILE:variant_probe>)
set(_elf_expect "")
foreach(_e IN LISTS POOLSHIM_VARIANT_EXPECT)
  list(APPEND _elf_expect "--expect=${_e}")
endforeach()

poolshim_process_test(elf audit_files TIMEOUT 180
  COMMAND ${_elf_driver} audit ${_elf_common} ${_elf_expect} ${POOLSHIM_VARIANT_MODULES})
poolshim_process_test(elf audit_wheel TIMEOUT 180
  COMMAND ${_elf_driver} wheel ${_elf_common} ${_elf_expect} --wheel ${POOLSHIM_VARIANT_WHEEL}
    --exe variant_exe)
poolshim_process_test(elf predictions_hold TIMEOUT 180
  COMMAND ${_elf_driver} predictions ${_elf_common} ${POOLSHIM_VARIANT_MODULES})
poolshim_process_test(elf executable_keeps_its_pool TIMEOUT 180
  COMMAND ${_elf_driver} exe ${_elf_common} --exe $<TARGET_FILE:variant_exe>)
poolshim_process_test(elf exported_executable_comes_first TIMEOUT 180
  COMMAND ${_elf_driver} exe-exported ${_elf_common} --exe $<TARGET_FILE:variant_exe_exported>
    ${POOLSHIM_VARIANT_DIR}/variant_default.so)
# RTLD_DEEPBIND: invisible in the ELF data, seen at run time in the module's GOT.
poolshim_process_test(elf deepbind_keeps_its_pool TIMEOUT 180
  COMMAND ${_elf_driver} deepbind ${_elf_common} ${POOLSHIM_VARIANT_DIR}/variant_default.so
    --deepbind ${POOLSHIM_VARIANT_DIR}/variant_lto_interposable.so)
