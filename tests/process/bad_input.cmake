# Bad input from outside (tests/process/bad_input.py): every POOLSHIM_* variable with hostile
# values, POOLSHIM_LOG_FILE naming things that cannot be logged to, a budget far above the CPUs,
# and secure-execution mode. A real host under LD_PRELOAD per input; one warning line each, the
# host's output and exit status unchanged.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_skipped_test(process.bad_input.skipped "${_why}")
  return()
endif()

set(_bad_args --shim $<TARGET_FILE:poolshim> --host $<TARGET_FILE:legacy_host>
  --linked-host $<TARGET_FILE:legacy_host_linked> --lib ${PROJECT_BINARY_DIR}/lib)

function(poolshim_bad_input_test name)
  add_test(NAME process.bad_input.${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/bad_input.py ${ARGN} ${_bad_args})
  set_tests_properties(process.bad_input.${name} PROPERTIES TIMEOUT 600
    LABELS "process;bad_input")
endfunction()

foreach(_var POOLSHIM_NUM_THREADS POOLSHIM_LOG POOLSHIM_LOG_FILE POOLSHIM_DISABLE)
  string(TOLOWER ${_var} _name)
  poolshim_bad_input_test(${_name} env ${_var})
endforeach()
poolshim_bad_input_test(log_file_targets log-file)
poolshim_bad_input_test(budget_above_cpus budget)
poolshim_bad_input_test(secure_mode secure)
