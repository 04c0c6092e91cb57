# The Python wheel (scripts/wheel.sh): built from this build tree into a temporary folder,
# installed with pip --no-index into a fresh venv of Debian's python3 (POOLSHIM_WHEEL_PYTHON), and
# used from there over the CPython fixture extensions: `poolshim run`, `python -m poolshim run`,
# threadpool_info() and `poolshim info --pools`; its manylinux tag against the files; `poolshim info`
# and `audit` (a plain ELF file, the wheel). Driver: wheel_driver.py (skips, with the reason,
# when that interpreter has no venv/pip/setuptools/wheel).

poolshim_missing(_why PYTHON PYTHON_EXTENSIONS CLI)
if(_why)
  poolshim_process_test(wheel install_and_run SKIPPED "${_why}")
  return()
endif()

if(EXISTS /usr/bin/python3)
  set(_wheel_python /usr/bin/python3)
else()
  set(_wheel_python ${Python3_EXECUTABLE})
endif()
set(POOLSHIM_WHEEL_PYTHON ${_wheel_python} CACHE FILEPATH
  "Interpreter whose venv and pip the wheel tests use (Debian's python3-venv, python3-pip)")
poolshim_process_test(wheel install_and_run TIMEOUT 300 LABELS python package
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/wheel_driver.py
  --source-dir ${PROJECT_SOURCE_DIR} --build-dir ${PROJECT_BINARY_DIR} --version ${PROJECT_VERSION}
  --python ${POOLSHIM_WHEEL_PYTHON} --fixture-dir ${POOLSHIM_PYTHON_FIXTURE_DIR})
# The same wheel where libarchive, libpthreadpool and libgomp are hidden (unshare -m; skipped
# where that is not allowed).
poolshim_process_test(wheel hidden_libraries TIMEOUT 300 LABELS python package
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/wheel_driver.py
  --source-dir ${PROJECT_SOURCE_DIR} --build-dir ${PROJECT_BINARY_DIR} --version ${PROJECT_VERSION}
  --python ${POOLSHIM_WHEEL_PYTHON} --fixture-dir ${POOLSHIM_PYTHON_FIXTURE_DIR} --hidden)
