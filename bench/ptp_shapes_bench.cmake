# The pthreadpool shapes bench (issue 8, point 6; docs/bench.md, "pthreadpool shapes"):
#   ptp_shapes_bench      a C client linked to Debian's libpthreadpool (DT_NEEDED), every
#                         parallelize shape of Debian's header; scripts/bench.sh runs it raw and
#                         under LD_PRELOAD=libpoolshim.so
#   ptp_item_median_bench per-item cost as the median of single 4096-task calls, a few shapes
#   dispatch_floor_bench  the moonshot's references: a spin-only 2-thread dispatch floor, and
#                         libgomp's `omp parallel for` over 2 items
find_library(POOLSHIM_BENCH_PTHREADPOOL pthreadpool REQUIRED)
find_path(POOLSHIM_BENCH_PTHREADPOOL_INCLUDE pthreadpool.h REQUIRED)
add_executable(ptp_shapes_bench ${CMAKE_CURRENT_LIST_DIR}/ptp_shapes_bench.c)
target_include_directories(ptp_shapes_bench PRIVATE ${POOLSHIM_BENCH_PTHREADPOOL_INCLUDE})
target_link_libraries(ptp_shapes_bench PRIVATE ${POOLSHIM_BENCH_PTHREADPOOL})
# Linked as any client is: no --as-needed surprises, the library must be DT_NEEDED.
target_link_options(ptp_shapes_bench PRIVATE -Wl,--no-as-needed)
add_executable(ptp_item_median_bench ${CMAKE_CURRENT_LIST_DIR}/ptp_item_median_bench.c)
target_include_directories(ptp_item_median_bench PRIVATE ${POOLSHIM_BENCH_PTHREADPOOL_INCLUDE})
target_link_libraries(ptp_item_median_bench PRIVATE ${POOLSHIM_BENCH_PTHREADPOOL})
target_link_options(ptp_item_median_bench PRIVATE -Wl,--no-as-needed)

find_package(OpenMP COMPONENTS C)
add_executable(dispatch_floor_bench ${CMAKE_CURRENT_LIST_DIR}/dispatch_floor_bench.c)
target_link_libraries(dispatch_floor_bench PRIVATE Threads::Threads)
if(OpenMP_C_FOUND)
  target_link_libraries(dispatch_floor_bench PRIVATE OpenMP::OpenMP_C)
else()
  message(STATUS "poolshim: no OpenMP for C; dispatch_floor_bench's omp mode runs serially")
endif()
