# `poolshim audit` against reality: the build variants of tests/fixtures/variants_elf.cmake are
# judged by audit (files and the zip wheel), then loaded under LD_PRELOAD by a probe that reports
# which pool each module's code really uses. A module called unreachable must keep its own pool,
# one called redirected must share the shim's (elf_predictions.py). Each test is its own process
# tree with an environment built from scratch by the driver.

poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_skipped_test(process.elf.skipped "${_why}")
  return()
endif()

set(_elf_driver ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/elf_predictions.py)
set(_elf_common --poolshim $<TARGET_FILE:poolshim_cli> --shim $<TARGET_FILE:poolshim>
  --probe $<TARGET_FILE:variant_probe>)
set(_elf_expect "")
foreach(_e IN LISTS POOLSHIM_VARIANT_EXPECT)
  list(APPEND _elf_expect "--expect=${_e}")
endforeach()

# poolshim_elf_test(<name> <driver args...>) -> process.elf.<name>
function(poolshim_elf_test name)
  add_test(NAME process.elf.${name} COMMAND ${_elf_driver} ${ARGN})
  set_tests_properties(process.elf.${name} PROPERTIES TIMEOUT 180 LABELS "process;elf")
endfunction()

poolshim_elf_test(audit_files audit ${_elf_common} ${_elf_expect} ${POOLSHIM_VARIANT_MODULES})
poolshim_elf_test(audit_wheel wheel ${_elf_common} ${_elf_expect} --wheel ${POOLSHIM_VARIANT_WHEEL}
  --exe variant_exe)
poolshim_elf_test(predictions_hold predictions ${_elf_common} ${POOLSHIM_VARIANT_MODULES})
poolshim_elf_test(executable_keeps_its_pool exe ${_elf_common} --exe $<TARGET_FILE:variant_exe>)
poolshim_elf_test(exported_executable_comes_first exe-exported ${_elf_common}
  --exe $<TARGET_FILE:variant_exe_exported> ${POOLSHIM_VARIANT_DIR}/variant_default.so)
# RTLD_DEEPBIND: invisible in the ELF data, seen at run time in the module's GOT.
poolshim_elf_test(deepbind_keeps_its_pool deepbind ${_elf_common}
  ${POOLSHIM_VARIANT_DIR}/variant_default.so --deepbind ${POOLSHIM_VARIANT_DIR}/variant_lto_interposable.so)
