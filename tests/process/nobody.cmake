# A host run as nobody from a build tree nobody cannot reach (tests/process/nobody_driver.py):
# proc_util.AsUser, the one way the process tests run something as another user, copies what the
# host needs into a folder nobody can read, so the suite passes from a clone in a 0700 folder.
poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(nobody private_build_tree SKIPPED "${_why}")
  return()
endif()
poolshim_process_test(nobody private_build_tree
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/nobody_driver.py
    --shim $<TARGET_FILE:poolshim> --host $<TARGET_FILE:legacy_host>
    --linked-host $<TARGET_FILE:legacy_host_linked> --module ${PROJECT_BINARY_DIR}/lib/module_a.so)
