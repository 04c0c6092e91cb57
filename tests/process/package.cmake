# Packaging (cmake/packaging.cmake): the installed CMake package and pkg-config file, each used
# by a consumer project built and run from a temporary prefix, and the .deb unpacked into a
# scratch root. Driver: package_driver.py. Each test installs the whole build tree, so they need
# every installed target built (they run after `cmake --build`).

poolshim_missing(_why PYTHON CLI)
if(_why)
  poolshim_process_test(package skipped SKIPPED "${_why}")
  return()
endif()

set(_pkg_common ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/package_driver.py
  --build-dir ${PROJECT_BINARY_DIR} --source-dir ${PROJECT_SOURCE_DIR} --cmake ${CMAKE_COMMAND}
  --cpack ${CMAKE_CPACK_COMMAND} --python ${Python3_EXECUTABLE})
foreach(_check cmake-consumer pkgconfig-consumer deb)
  string(REPLACE "-" "_" _name ${_check})
  poolshim_process_test(package ${_name} COMMAND ${_pkg_common} ${_check} TIMEOUT 300)
endforeach()
