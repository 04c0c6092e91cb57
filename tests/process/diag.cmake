# Diagnostics seen from outside: the log file, invalid environment values, POOLSHIM_DISABLE.
# Each test runs the legacy host in its own process (core_driver.py) and checks what it prints
# on stdout (pool identity), on stderr, and in the log file.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(diag skipped SKIPPED "${_why}")
  return()
endif()

set(_diag_driver ${CMAKE_CURRENT_LIST_DIR}/core_driver.py)
set(_diag_file_check ${CMAKE_CURRENT_LIST_DIR}/diag_log_file.py)
set(_diag_ab ${PROJECT_BINARY_DIR}/lib/module_a.so ${PROJECT_BINARY_DIR}/lib/module_b.so)
set(_diag_host $<TARGET_FILE:legacy_host> --scenario alternating --calls 20 --items 16 --spin-ns 500)
set(_diag_env --preload $<TARGET_FILE:poolshim> --env LEGACY_ET_NUM_THREADS=3)

# An invalid value: exactly one warning line, even with logging off, and the default budget.
poolshim_process_test(diag invalid_num_threads_warns_once COMMAND
  ${Python3_EXECUTABLE} ${_diag_driver} ${_diag_env} --env POOLSHIM_NUM_THREADS=two
    --expect pools=1 --expect shim.loaded=1
    --stderr-match "^poolshim: warning: invalid POOLSHIM_NUM_THREADS='two' \\(want a whole number from 1 to 4096 or cores\\)[^\n]*using the machine's budget\n$"
    -- ${_diag_host} ${_diag_ab})
poolshim_process_test(diag invalid_log_level_warns_once COMMAND
  ${Python3_EXECUTABLE} ${_diag_driver} ${_diag_env} --env POOLSHIM_LOG=chatty --env POOLSHIM_NUM_THREADS=2
    --expect pools=1
    --stderr-match "^poolshim: warning: invalid POOLSHIM_LOG='chatty'[^\n]*\n$"
    -- ${_diag_host} ${_diag_ab})

# POOLSHIM_DISABLE=executorch: the surface passes through, each module keeps its own pool.
poolshim_process_test(diag disable_executorch_passes_through COMMAND
  ${Python3_EXECUTABLE} ${_diag_driver} ${_diag_env} --env POOLSHIM_NUM_THREADS=2
    --env POOLSHIM_DISABLE=executorch --expect pools=2 --expect shim.loaded=1 --stderr-empty
    -- ${_diag_host} ${_diag_ab})

# POOLSHIM_LOG_FILE: the lines go to the file, nothing to stderr; a symlink is refused.
poolshim_process_test(diag log_file_receives_the_lines COMMAND
  ${Python3_EXECUTABLE} ${_diag_file_check} --driver ${_diag_driver} --mode file
    -- ${_diag_env} --env POOLSHIM_NUM_THREADS=2 --env POOLSHIM_LOG=info --expect pools=1
    -- ${_diag_host} ${_diag_ab})
poolshim_process_test(diag log_file_symlink_refused COMMAND
  ${Python3_EXECUTABLE} ${_diag_file_check} --driver ${_diag_driver} --mode symlink
    -- ${_diag_env} --env POOLSHIM_NUM_THREADS=2 --env POOLSHIM_LOG=info --expect pools=1
    -- ${_diag_host} ${_diag_ab})
