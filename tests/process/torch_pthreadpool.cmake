# Debian's PyTorch (python3-torch, run by /usr/bin/python3 which sees Debian's packages) on the
# shim's pthreadpool: XNNPACK and QNNPACK ops across set_num_threads changes, bitwise identical
# with and without LD_PRELOAD. The driver runs under the tests' interpreter; the workload under
# POOLSHIM_TORCH_PYTHON. Skipped (exit 77, POOLSHIM_SKIP_RC) where torch is not importable.

poolshim_missing(_why PYTHON)
if(_why)
  poolshim_skipped_test(process.torch.skipped "${_why}")
  return()
endif()

add_test(NAME process.torch.pthreadpool
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/torch_driver.py
    --python ${POOLSHIM_TORCH_PYTHON} --shim $<TARGET_FILE:poolshim>
    --workload ${CMAKE_CURRENT_LIST_DIR}/torch_workload.py --timeout 90)
set_tests_properties(process.torch.pthreadpool PROPERTIES
  TIMEOUT 200 LABELS "process;pthreadpool;torch")

# Debian's PyTorch on OpenMP (issue 18, point 6): aten ops, oneDNN convolutions and the
# XNNPACK+aten mixed loop, bitwise identical without the shim, forwarding (POOLSHIM_OPENMP=forward)
# and natively (the default), at 1 and 2 threads (torch_openmp_driver.py).
add_test(NAME process.torch.openmp
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/torch_openmp_driver.py
    --python ${POOLSHIM_TORCH_PYTHON} --shim $<TARGET_FILE:poolshim>
    --workload ${CMAKE_CURRENT_LIST_DIR}/torch_openmp_workload.py --timeout 240)
set_tests_properties(process.torch.openmp PROPERTIES
  TIMEOUT 600 LABELS "process;openmp;torch")
