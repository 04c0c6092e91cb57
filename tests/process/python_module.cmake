# The pure-Python module (python/poolshim, copied with its generated _build.py into
# build/python by cmake/packaging.cmake): CPython with the fixture extensions, the cap API
# through limit(), and Debian's PyTorch (/usr/bin/python3, POOLSHIM_TORCH_PYTHON) whose OpenMP
# team follows the budget under `python -m poolshim run`, and whose pools threadpool_info() lists
# as Debian's threadpoolctl and /proc/self/task see them. Driver: python_module.py.

poolshim_missing(_why PYTHON)
if(_why)
  poolshim_skipped_test(process.python.skipped "${_why}")
  return()
endif()

set(_pym ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/python_module.py
  --pythonpath ${POOLSHIM_PYTHON_BUILD_DIR} --shim $<TARGET_FILE:poolshim>)

add_test(NAME process.python.module COMMAND ${_pym} cpython --python ${Python3_EXECUTABLE}
  --fixture-dir "${POOLSHIM_PYTHON_FIXTURE_DIR}")
add_test(NAME process.python.limit COMMAND ${_pym} limit --python ${Python3_EXECUTABLE})
set(_torch_cli)
if(TARGET poolshim_cli)
  set(_torch_cli --poolshim $<TARGET_FILE:poolshim_cli>)
endif()
add_test(NAME process.python.torch COMMAND ${_pym} torch --python ${POOLSHIM_TORCH_PYTHON} ${_torch_cli})
add_test(NAME process.python.torch_pools COMMAND ${_pym} torch-pools --python ${POOLSHIM_TORCH_PYTHON})
# threadpoolctl (threadpoolctl_driver.py): poolshim's controller with the installed threadpoolctl
# (Debian's, POOLSHIM_TORCH_PYTHON; skipped where it has no register()), with a stand-in of
# threadpoolctl 3.6's controller interface, and poolshim.threadpool_limits.
set(_tpc ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/threadpoolctl_driver.py
  --pythonpath ${POOLSHIM_PYTHON_BUILD_DIR} --shim $<TARGET_FILE:poolshim>)
add_test(NAME process.python.threadpoolctl COMMAND ${_tpc} controller --python ${POOLSHIM_TORCH_PYTHON})
add_test(NAME process.python.threadpoolctl_fake COMMAND ${_tpc} controller-fake --python ${Python3_EXECUTABLE})
add_test(NAME process.python.threadpool_limits COMMAND ${_tpc} limits --python ${POOLSHIM_TORCH_PYTHON})
set_tests_properties(process.python.module process.python.limit process.python.torch process.python.torch_pools
  process.python.threadpoolctl process.python.threadpoolctl_fake process.python.threadpool_limits PROPERTIES
  TIMEOUT 240 LABELS "process;python")
