# The `poolshim` command: run (environment, exit statuses, a real preload, the Python fixtures
# merged), audit (usage, folders, broken inputs) and info. Driver: elf_cli.py, one process tree
# per test with an environment built from scratch.

poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_process_test(cli skipped SKIPPED "${_why}")
  return()
endif()

set(_cli_common ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/elf_cli.py
  --poolshim $<TARGET_FILE:poolshim_cli> --shim $<TARGET_FILE:poolshim>
  --probe $<TARGET_FILE:variant_probe> --module ${POOLSHIM_VARIANT_DIR}/variant_default.so)

foreach(_check run-usage run-env run-preload audit-usage audit-inputs info)
  string(REPLACE "-" "_" _name ${_check})
  poolshim_process_test(cli ${_name} COMMAND ${_cli_common} ${_check})
endforeach()

# `poolshim run -- python3 probe_ext.py` merges the pools of the two CPython fixture extensions
# (tests/fixtures/legacy_et_python.cmake), with the interpreter they were built for.
poolshim_missing(_why PYTHON_EXTENSIONS)
if(_why)
  poolshim_process_test(cli run_python SKIPPED "${_why}")
else()
  poolshim_process_test(cli run_python COMMAND ${_cli_common} run-python
    --python ${Python3_EXECUTABLE} --python-dir ${POOLSHIM_PYTHON_FIXTURE_DIR}
    --python-probe ${POOLSHIM_PYTHON_PROBE})
endif()
