# Debian's PyTorch (python3-torch, run by /usr/bin/python3 which sees Debian's packages) on the
# shim's pthreadpool: XNNPACK and QNNPACK ops across set_num_threads changes, bitwise identical
# with and without LD_PRELOAD. The driver runs under the tests' interpreter; the workload under
# POOLSHIM_TORCH_PYTHON. Skipped (exit 77, POOLSHIM_SKIP_RC) where torch is not importable.

poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(torch skipped SKIPPED "${_why}")
  return()
endif()

poolshim_process_test(torch pthreadpool TIMEOUT 200 LABELS pthreadpool
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/torch_driver.py
    --python ${POOLSHIM_TORCH_PYTHON} --shim $<TARGET_FILE:poolshim>
    --workload ${CMAKE_CURRENT_LIST_DIR}/torch_workload.py --timeout 90)

# Debian's PyTorch on OpenMP (issue 18, point 6): aten ops, oneDNN convolutions and the
# XNNPACK+aten mixed loop, bitwise identical without the shim, forwarding (POOLSHIM_OPENMP=forward)
# and natively (the default), at 1 and 2 threads (torch_openmp_driver.py).
poolshim_process_test(torch openmp TIMEOUT 600 LABELS openmp
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/torch_openmp_driver.py
    --python ${POOLSHIM_TORCH_PYTHON} --shim $<TARGET_FILE:poolshim>
    --workload ${CMAKE_CURRENT_LIST_DIR}/torch_openmp_workload.py --timeout 240)
