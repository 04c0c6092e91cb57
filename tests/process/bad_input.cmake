# Bad input from outside (tests/process/bad_input.py): every POOLSHIM_* variable with hostile
# values, POOLSHIM_LOG_FILE naming things that cannot be logged to, a budget far above the CPUs,
# and secure-execution mode. A real host under LD_PRELOAD per input; one warning line each, the
# host's output and exit status unchanged.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(bad_input skipped SKIPPED "${_why}")
  return()
endif()

set(_bad_args --shim $<TARGET_FILE:poolshim> --host $<TARGET_FILE:legacy_host>
  --linked-host $<TARGET_FILE:legacy_host_linked> --lib ${PROJECT_BINARY_DIR}/lib)
set(_bad ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/bad_input.py)

foreach(_var POOLSHIM_NUM_THREADS POOLSHIM_LOG POOLSHIM_LOG_FILE POOLSHIM_DISABLE)
  string(TOLOWER ${_var} _name)
  poolshim_process_test(bad_input ${_name} COMMAND ${_bad} env ${_var} ${_bad_args} TIMEOUT 600)
endforeach()
poolshim_process_test(bad_input log_file_targets COMMAND ${_bad} log-file ${_bad_args} TIMEOUT 600)
poolshim_process_test(bad_input budget_above_cpus COMMAND ${_bad} budget ${_bad_args} TIMEOUT 600)
poolshim_process_test(bad_input secure_mode COMMAND ${_bad} secure ${_bad_args} TIMEOUT 600)
