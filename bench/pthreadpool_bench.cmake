# pthreadpool_dispatch_bench: per-call overhead of pthreadpool_parallelize_1d and
# pthreadpool_parallelize_2d_tile_2d through libpoolshim.so against raw Debian pthreadpool, both
# dlopen'ed RTLD_LOCAL into one process, on pools of the same size. Prints the ratios of the
# medians at the end. Run: build/bin/pthreadpool_dispatch_bench (see the file header for knobs).
add_executable(pthreadpool_dispatch_bench ${CMAKE_CURRENT_LIST_DIR}/pthreadpool_dispatch_bench.cpp)
target_include_directories(pthreadpool_dispatch_bench PRIVATE ${PROJECT_SOURCE_DIR}/shim)
target_compile_definitions(pthreadpool_dispatch_bench PRIVATE
  POOLSHIM_BENCH_SHIM_DEFAULT="$<TARGET_FILE:poolshim>")
target_link_libraries(pthreadpool_dispatch_bench PRIVATE benchmark::benchmark Threads::Threads
  ${CMAKE_DL_LIBS})
add_dependencies(pthreadpool_dispatch_bench poolshim)
