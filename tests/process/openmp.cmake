# The OpenMP surface (shim/abi/openmp, docs/openmp.md) in real processes:
#  - process.openmp.forward: an -fopenmp program's output without the shim, preloaded with
#    POOLSHIM_OPENMP=forward, with POOLSHIM_DISABLE=openmp, and preloaded (the native runtime, the
#    default), at several OMP_NUM_THREADS (openmp_driver.py);
#  - process.openmp.tasks: the same comparison for tasks (openmp_tasks_driver.py);
#  - process.openmp.libgomp_subset: a fast subset of GCC's own libgomp testsuite, without and
#    with the preload, forwarding and native (scripts/libgomp_suite.py --subset --native; the
#    full run is scripts/libgomp_suite.sh); where clang-14 and libomp-14-dev are installed, the
#    same tests built by clang-14 on LLVM's libomp, without and with the preload (--clang);
#    process.openmp.libgomp_team_of_one: its task tests at OMP_NUM_THREADS=1 (--threads 1).
#    Skipped where Debian's gcc-12-source is not installed (scripts/deps.sh openmp).

poolshim_missing(_why PYTHON)
if(_why OR NOT TARGET openmp_program)
  if(NOT _why)
    set(_why "no OpenMP compiler support for the fixture")
  endif()
  poolshim_process_test(openmp skipped SKIPPED "${_why}")
  return()
endif()

poolshim_process_test(openmp forward TIMEOUT 300
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_driver.py
    --shim $<TARGET_FILE:poolshim> --program $<TARGET_FILE:openmp_program>)

# A thread with a pending pthread_cancel makes the process's first region and pthreadpool call:
# the shim's first use reads files on that thread, and must not act on the cancel there (libgomp
# and Debian's pthreadpool have no cancellation point inside a call; base/no_cancel.h). Without
# the shim, then under the preload: both run to the end, later regions and calls complete.
foreach(_cancel_pre IN ITEMS "" "--preload;$<TARGET_FILE:poolshim>")
  if(_cancel_pre)
    set(_cancel_name cancel_pending_in_first_call)
  else()
    set(_cancel_name cancel_pending_in_first_call_without_shim)
  endif()
  poolshim_process_test(openmp ${_cancel_name} TIMEOUT 120
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/core_driver.py --timeout 60
      ${_cancel_pre} --env OMP_NUM_THREADS=2 --expect victim.cancelled=1 --expect status=ok
      -- $<TARGET_FILE:openmp_cancel_host>)
endforeach()

# A region of 8 where no thread can be started (RLIMIT_NPROC of 1, as nobody: see
# process.scheduler.degraded_when_no_thread_can_start): libgomp ends the process; under the shim
# the gang takes its seats back and the team is its caller alone (core/gang.h, Policy::shrink),
# with the loop's full sum. Before, the caller waited for those seats forever.
poolshim_process_test(openmp team_alone_when_no_thread_can_start TIMEOUT 90
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/core_driver.py --timeout 60
    --preload $<TARGET_FILE:poolshim> --env POOLSHIM_NUM_THREADS=2 --expect members=1
    --expect status=ok --as-user nobody
    -- prlimit --nproc=1:1 $<TARGET_FILE:openmp_short_team>)

# ... and where only some can (RLIMIT_NPROC of 4: the main thread, a pool worker and two team
# threads): the members that came are held until the gang knows its size, then run as a team of
# fewer, numbered 0..m-1 (core/gang_seats.h, "Holding"). Before, the caller waited for the other
# seats forever. 20 regions, each of the same size: the threads alive, not those that came first
# (teams of 1 to 3 before 2026-12-08). As daemon: RLIMIT_NPROC counts every thread of the user, and
# the other tests run as nobody.
poolshim_process_test(openmp team_shrinks_when_some_threads_cannot_start TIMEOUT 90
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/core_driver.py --timeout 60
    --preload $<TARGET_FILE:poolshim> --env POOLSHIM_NUM_THREADS=2 --expect shrunk=yes
    --expect numbers=ok --expect status=ok --expect teams=same --as-user daemon
    -- prlimit --nproc=4:4 $<TARGET_FILE:openmp_short_team> 8 20)

# ... and the same for a team wider than the 32 seats of a gang's mask (the seats past them are
# claimed in order through another word): 40 asked, 36 threads (the main thread, a pool worker
# and 34 team threads: the 32 seats of the mask and 4 past it, which renumber after those), 20
# regions. Before, only gangs of up to 32 were held, and a wider one whose threads could not all
# start waited for them forever. As bin, for RLIMIT_NPROC's count, as above.
poolshim_process_test(openmp wide_team_shrinks_when_some_threads_cannot_start TIMEOUT 90
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/core_driver.py --timeout 60
    --preload $<TARGET_FILE:poolshim> --env POOLSHIM_NUM_THREADS=2 --expect shrunk=yes
    --expect numbers=ok --expect status=ok --expect teams=same --as-user bin
    -- prlimit --nproc=36:36 $<TARGET_FILE:openmp_short_team> 40 20)

# Teams under OMP_DYNAMIC=true at loads 0.00, 0.85, 0.95 and 1.50 (a getloadavg of the test's
# own, preloaded): the same sizes without the shim and under it.
poolshim_process_test(openmp dynamic_teams_as_libgomp TIMEOUT 120
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_dynamic.py
    --shim $<TARGET_FILE:poolshim> --fake-loadavg $<TARGET_FILE:fake_loadavg>
    --program $<TARGET_FILE:openmp_dynamic_teams>)

# Tasks (openmp_tasks_driver.py): task reductions, taskloop, omp_in_final, natively too.
poolshim_process_test(openmp tasks TIMEOUT 300
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_tasks_driver.py
    --shim $<TARGET_FILE:poolshim> --program $<TARGET_FILE:openmp_tasks>)

# process.openmp.parity: task dependences, taskwait depend, an if(0) task's taskwait, undeferred
# detached tasks and a team member's signal mask as libgomp has them (openmp_parity_driver.py).
# process.openmp.ordered_wait (label timing: a rate): a member waiting for its ordered turn sleeps.
poolshim_process_test(openmp parity TIMEOUT 300
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_parity_driver.py
    --shim $<TARGET_FILE:poolshim> --program $<TARGET_FILE:openmp_parity>)
# process.openmp.bind: OMP_PROC_BIND/OMP_PLACES place a team's members as libgomp does, and the
# budget counts the process's CPUs, not the place libgomp pinned the initial thread to.
poolshim_process_test(openmp bind TIMEOUT 120
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_parity_driver.py
    --part bind --shim $<TARGET_FILE:poolshim> --program $<TARGET_FILE:openmp_parity>)
poolshim_process_test(openmp ordered_wait TIMING TIMEOUT 120
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_parity_driver.py
    --part ordered_wait --shim $<TARGET_FILE:poolshim> --program $<TARGET_FILE:openmp_parity>)

# process.openmp.copies: copies of libgomp's ABI the preload can or cannot reach (a renamed
# libgomp as wheels vendor it, a module's own runtime hidden, -Bsymbolic or exported, libgomp.a
# in the executable), built at test time; audit and the log name each with its reason.
if(TARGET poolshim_cli)
  poolshim_process_test(openmp copies TIMEOUT 300
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_copies.py
      --shim $<TARGET_FILE:poolshim> --poolshim $<TARGET_FILE:poolshim_cli>
      --cc ${CMAKE_C_COMPILER} --fixtures ${PROJECT_SOURCE_DIR}/tests/fixtures/openmp/copies)
endif()

# process.openmp.team_threads: teams beyond the budget get their threads (POOLSHIM_OPENMP=shim),
# counted in poolshim_info.team_threads and `poolshim info --pid`, logged once;
# process.openmp.team_threads_torch: and in poolshim.info() inside Debian's PyTorch
# (POOLSHIM_TORCH_PYTHON; Skipped where torch is not importable).
if(TARGET poolshim_cli AND TARGET openmp_team_threads)
  foreach(_part team torch)
    set(_name team_threads)
    if(_part STREQUAL torch)
      set(_name team_threads_torch)
    endif()
    poolshim_process_test(openmp ${_name} TIMEOUT 300
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_team_threads.py --part ${_part}
        --shim $<TARGET_FILE:poolshim> --poolshim $<TARGET_FILE:poolshim_cli>
        --program $<TARGET_FILE:openmp_team_threads> --python ${POOLSHIM_TORCH_PYTHON}
        --pythonpath ${POOLSHIM_PYTHON_BUILD_DIR})
  endforeach()
endif()

# process.openmp.kmpc_forward: clang-built programs (LLVM libomp's __kmpc_* ABI) print the same
# without the shim and under the preload in every mode, their calls entering the shim and going
# on to libomp (openmp_kmpc_driver.py); process.openmp.kmpc_native: with POOLSHIM_KMPC=shim, a
# program within the native set runs natively with the same output, one outside it stays on
# libomp, and the mixed OpenMP + pthreadpool program keeps to the budget's threads
# (openmp_kmpc_native_driver.py). Skipped without clang-14 and libomp-14-dev.
find_program(POOLSHIM_CLANG14 clang-14)
foreach(_kmpc forward native)
  set(_driver openmp_kmpc_driver.py)
  set(_extra)
  if(_kmpc STREQUAL native)
    set(_driver openmp_kmpc_native_driver.py)
  elseif(TARGET poolshim_cli)  # and the pools view of a clang-built process
    set(_extra --poolshim $<TARGET_FILE:poolshim_cli> --include ${PROJECT_SOURCE_DIR}/include
      --include ${PROJECT_BINARY_DIR}/include)
  endif()
  if(POOLSHIM_CLANG14 AND EXISTS /usr/lib/llvm-14/lib/libomp.so)
    poolshim_process_test(openmp kmpc_${_kmpc} TIMEOUT 300
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/${_driver}
        --shim $<TARGET_FILE:poolshim> --clang ${POOLSHIM_CLANG14}
        --fixtures ${PROJECT_SOURCE_DIR}/tests/fixtures/openmp ${_extra})
  else()
    poolshim_process_test(openmp kmpc_${_kmpc} SKIPPED
      "no clang-14 or libomp-14-dev (scripts/deps.sh openmp)")
  endif()
endforeach()

# The suite's runner preloads the shim alone: no sanitizer runtime, so not in sanitizer builds.
file(GLOB _gcc_tarball /usr/src/gcc-12/gcc-12*.tar.xz)
set(_clang_column)
if(POOLSHIM_CLANG14 AND EXISTS /usr/lib/llvm-14/lib/libomp.so)
  set(_clang_column --clang)
endif()
if(_gcc_tarball AND NOT POOLSHIM_SANITIZE)
  poolshim_process_test(openmp libgomp_subset TIMEOUT 900
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/libgomp_suite.py
      --shim $<TARGET_FILE:poolshim> --work ${PROJECT_BINARY_DIR}/libgomp-subset --subset 16 --native
      ${_clang_column} --timeout 60)
  # Teams of one (OMP_NUM_THREADS=1), where the native runtime runs most tasks undeferred and
  # nobody else runs what a wait leaves queued: the suite's task dependence, detach, taskgroup
  # and taskwait tests, natively and on libgomp (three of them hung natively in a build that
  # deferred every task with depend clauses in a team of one).
  poolshim_process_test(openmp libgomp_team_of_one TIMEOUT 600
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/libgomp_suite.py
      --shim $<TARGET_FILE:poolshim> --work ${PROJECT_BINARY_DIR}/libgomp-team-of-one --native
      --native-only --threads 1 --timeout 60
      --match "depend-[0-9]|task-detach|taskgroup|taskwait|target-32")
else()
  poolshim_process_test(openmp libgomp_subset SKIPPED
    "no GCC tarball under /usr/src/gcc-12 (scripts/deps.sh openmp), or a sanitizer build")
  poolshim_process_test(openmp libgomp_team_of_one SKIPPED
    "no GCC tarball under /usr/src/gcc-12 (scripts/deps.sh openmp), or a sanitizer build")
endif()

# process.openmp.loops: tests/fixtures/openmp/openmp_loops.c (the iteration splits of every loop
# schedule, long and ull, up and down, nonmonotonic dynamic ones in any order and their
# lastprivate; doacross; scan; lastprivate(conditional); the old combined starts) prints the same
# lines natively (the default) as with libgomp.
if(TARGET openmp_loops)
  poolshim_process_test(openmp loops TIMEOUT 300
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/openmp_loops_driver.py
      --shim $<TARGET_FILE:poolshim> --program $<TARGET_FILE:openmp_loops>)
endif()
