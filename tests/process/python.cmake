# The pure-Python module (python/poolshim, copied with its generated _build.py into
# build/python by cmake/packaging.cmake): CPython with the fixture extensions, the cap API
# through limit(), and Debian's PyTorch (/usr/bin/python3, POOLSHIM_TORCH_PYTHON) whose OpenMP
# team follows the budget under `python -m poolshim run`, and whose pools threadpool_info() lists
# as Debian's threadpoolctl and /proc/self/task see them. Driver: python_module.py.

poolshim_missing(_why PYTHON)
if(_why)
  poolshim_process_test(python skipped SKIPPED "${_why}")
  return()
endif()

set(_pym ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/python_module.py
  --pythonpath ${POOLSHIM_PYTHON_BUILD_DIR} --shim $<TARGET_FILE:poolshim>)

poolshim_process_test(python module TIMEOUT 240
  COMMAND ${_pym} cpython --python ${Python3_EXECUTABLE}
    --fixture-dir "${POOLSHIM_PYTHON_FIXTURE_DIR}")
poolshim_process_test(python limit TIMEOUT 240
  COMMAND ${_pym} limit --python ${Python3_EXECUTABLE})
set(_torch_cli)
if(TARGET poolshim_cli)
  set(_torch_cli --poolshim $<TARGET_FILE:poolshim_cli>)
endif()
poolshim_process_test(python torch TIMEOUT 240
  COMMAND ${_pym} torch --python ${POOLSHIM_TORCH_PYTHON} ${_torch_cli})
poolshim_process_test(python torch_pools TIMEOUT 240
  COMMAND ${_pym} torch-pools --python ${POOLSHIM_TORCH_PYTHON})
# threadpoolctl (threadpoolctl_driver.py): poolshim's controller with the installed threadpoolctl
# (Debian's, POOLSHIM_TORCH_PYTHON; skipped where it has no register()), with a stand-in of
# threadpoolctl 3.6's controller interface, and poolshim.threadpool_limits.
set(_tpc ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/threadpoolctl_driver.py
  --pythonpath ${POOLSHIM_PYTHON_BUILD_DIR} --shim $<TARGET_FILE:poolshim>)
poolshim_process_test(python threadpoolctl TIMEOUT 240
  COMMAND ${_tpc} controller --python ${POOLSHIM_TORCH_PYTHON})
poolshim_process_test(python threadpoolctl_fake TIMEOUT 240
  COMMAND ${_tpc} controller-fake --python ${Python3_EXECUTABLE})
poolshim_process_test(python threadpool_limits TIMEOUT 240
  COMMAND ${_tpc} limits --python ${POOLSHIM_TORCH_PYTHON})
