# Everything `cmake --install` and `cpack -G DEB` ship besides the library's own install rules
# (shim/CMakeLists.txt) and the command's (tools/CMakeLists.txt):
#   <libdir>/cmake/poolshim/poolshimConfig.cmake, poolshimConfigVersion.cmake (find_package)
#   <libdir>/pkgconfig/poolshim.pc                                            (pkg-config)
#   share/man/man1/poolshim.1, share/doc/poolshim/LICENSE
#   <POOLSHIM_INSTALL_PYTHONDIR>/poolshim/                                    (import poolshim)
# and the pure-Python module's build-tree copy in build/python/ (PYTHONPATH=build/python).
include(CMakePackageConfigHelpers)

set(POOLSHIM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/poolshim)
set(POOLSHIM_INSTALL_PYTHONDIR lib/python3/dist-packages CACHE STRING
  "Where the pure-Python poolshim module is installed, relative to the prefix (Debian's layout)")

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/poolshimConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/poolshimConfig.cmake INSTALL_DESTINATION ${POOLSHIM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/poolshimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/poolshimConfig.cmake ${PROJECT_BINARY_DIR}/cmake/poolshimConfigVersion.cmake
  DESTINATION ${POOLSHIM_INSTALL_CMAKEDIR})

# pkg-config: the prefix is found from the .pc file's own folder, so a copied or relocated
# install tree (and the .deb unpacked anywhere) still works.
file(RELATIVE_PATH POOLSHIM_PC_PREFIX_FROM_PCDIR /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${PROJECT_SOURCE_DIR}/cmake/poolshim.pc.in ${PROJECT_BINARY_DIR}/pkgconfig/poolshim.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/poolshim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/docs/poolshim.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Python module: the files listed here plus a generated _build.py that records the version and
# where the library and the command lie relative to the module (build tree: build/python ->
# build/lib, build/bin; install: <pythondir> -> <libdir>, <bindir>; wheel: poolshim/_bundle/lib,
# poolshim/_bundle/bin, scripts/wheel.sh).
set(POOLSHIM_PYTHON_SOURCES)
foreach(_py __init__ __main__ _cli _native _pools _run _runtimes _threadpoolctl _version)
  list(APPEND POOLSHIM_PYTHON_SOURCES ${PROJECT_SOURCE_DIR}/python/poolshim/${_py}.py)
endforeach()
set(POOLSHIM_PYTHON_BUILD_DIR ${PROJECT_BINARY_DIR}/python)
foreach(_py IN LISTS POOLSHIM_PYTHON_SOURCES)
  get_filename_component(_name ${_py} NAME)
  configure_file(${_py} ${POOLSHIM_PYTHON_BUILD_DIR}/poolshim/${_name} COPYONLY)
  install(FILES ${_py} DESTINATION ${POOLSHIM_INSTALL_PYTHONDIR}/poolshim)
endforeach()
set(POOLSHIM_PY_LIBDIR_FROM_MODULE ../../lib)
set(POOLSHIM_PY_COMMAND_FROM_MODULE ../../bin/poolshim)
configure_file(${PROJECT_SOURCE_DIR}/cmake/_build.py.in ${POOLSHIM_PYTHON_BUILD_DIR}/poolshim/_build.py @ONLY)
file(RELATIVE_PATH POOLSHIM_PY_LIBDIR_FROM_MODULE
  /p/${POOLSHIM_INSTALL_PYTHONDIR}/poolshim /p/${CMAKE_INSTALL_LIBDIR})
file(RELATIVE_PATH POOLSHIM_PY_COMMAND_FROM_MODULE
  /p/${POOLSHIM_INSTALL_PYTHONDIR}/poolshim /p/${CMAKE_INSTALL_BINDIR}/poolshim)
configure_file(${PROJECT_SOURCE_DIR}/cmake/_build.py.in ${PROJECT_BINARY_DIR}/python-install/_build.py @ONLY)
# The wheel's (scripts/wheel.sh copies it into the staged package): the library and the command
# are bundled inside the package folder.
set(POOLSHIM_PY_LIBDIR_FROM_MODULE _bundle/lib)
set(POOLSHIM_PY_COMMAND_FROM_MODULE _bundle/bin/poolshim)
configure_file(${PROJECT_SOURCE_DIR}/cmake/_build.py.in ${PROJECT_BINARY_DIR}/python-wheel/_build.py @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/python-install/_build.py DESTINATION ${POOLSHIM_INSTALL_PYTHONDIR}/poolshim)

# The Debian package: `cpack -G DEB` in the build folder (or `cmake --build build --target package`).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME poolshim)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The poolshim authors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "one process-wide CPU thread pool behind legacy thread-pool ABIs")
set(CPACK_PACKAGE_DESCRIPTION
  "libpoolshim.so, preloaded or linked ahead of a static copy, gives every module of a process that\n\
brings its own thread pool (the ExecuTorch thread-pool ABI, the pthreadpool C API) one shared\n\
pool inside one thread budget. Includes the poolshim command (run, audit, info), the header, the\n\
CMake and pkg-config files, the man page and the pure-Python poolshim module.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "The poolshim authors <poolshim@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
# libpthreadpool.so.0 (the passthrough of POOLSHIM_DISABLE=pthreadpool), libarchive.so.13 (the
# command's audit of archives, tools/archive_lib.h) and libcpuinfo are dlopen()ed, so
# dpkg-shlibdeps cannot see them: name them here; the rest (libc) comes from dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libpthreadpool0, libarchive13")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libcpuinfo0, python3")
# Only the installed files, never the build tree's test fixtures.
set(CPACK_SOURCE_IGNORE_FILES "/build.*/;/\\\\.git/")
include(CPack)
