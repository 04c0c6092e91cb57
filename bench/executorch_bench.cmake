# ExecuTorch-surface micro-benchmarks and the process bench's idle host (issue 5; scripts/bench.sh,
# docs/bench.md). Included from bench/CMakeLists.txt.
#   executorch_<name>_bench   one Google Benchmark program per bench/executorch_<name>_bench.cpp:
#                             the shim's exported ExecuTorch symbols vs a legacy fixture module's
#                             own code, both dlopen'ed RTLD_LOCAL into the same process
#   idle_host                 prints its own VmRSS and thread count, does nothing else
#   fork_cost_host            forks and waits, prints its children's page faults and the time
# The raw side is module_a.so, a test fixture: these programs need POOLSHIM_BUILD_TESTS=ON.

if(NOT TARGET benchmark::benchmark)
  find_package(benchmark REQUIRED)
endif()

add_executable(idle_host ${CMAKE_CURRENT_LIST_DIR}/host/idle_host.cpp)
add_executable(fork_cost_host ${CMAKE_CURRENT_LIST_DIR}/host/fork_cost_host.c)

if(NOT TARGET module_a)
  message(STATUS "poolshim: ExecuTorch micro-benchmarks need the fixtures (POOLSHIM_BUILD_TESTS=ON); skipped")
  return()
endif()

add_library(poolshim_bench_surface STATIC ${CMAKE_CURRENT_LIST_DIR}/executorch_surface.cpp)
target_include_directories(poolshim_bench_surface PUBLIC ${CMAKE_CURRENT_LIST_DIR})
# Default paths of the two objects compared; POOLSHIM_BENCH_SHIM / POOLSHIM_BENCH_MODULE override.
target_compile_definitions(poolshim_bench_surface PRIVATE
  POOLSHIM_BENCH_SHIM_DEFAULT="$<TARGET_FILE:poolshim>"
  POOLSHIM_BENCH_MODULE_DEFAULT="$<TARGET_FILE:module_a>")
target_link_libraries(poolshim_bench_surface PUBLIC benchmark::benchmark Threads::Threads ${CMAKE_DL_LIBS})

file(GLOB _poolshim_et_benches CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/executorch_*_bench.cpp)
foreach(_src IN LISTS _poolshim_et_benches)
  get_filename_component(_name ${_src} NAME_WE)
  add_executable(${_name} ${_src})
  # Not linked against the shim: it is dlopen'ed RTLD_LOCAL so that it interposes nothing.
  target_link_libraries(${_name} PRIVATE poolshim_bench_surface)
  add_dependencies(${_name} poolshim module_a)
endforeach()
