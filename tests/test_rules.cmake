# The suite-wide rules that apply to a test by its name (the lists are set and explained in
# tests/CMakeLists.txt). Read in two places, so that a rule is written once:
#  - at configure time, by poolshim_test_rules() (tests/CMakeLists.txt), for the tests add_test()
#    registers;
#  - at test time, by the CTest script poolshim_discovered_test_rules() writes, for the unit tests
#    that gtest_discover_tests() registers only when CTest reads the build tree (their names do
#    not exist at configure time). CTest runs that script in its own interpreter: the rules use
#    only commands that CTest knows (no set_property, no get_test_property).
# And the one helper that adds a process test, poolshim_process_test() (at the end), which names
# the test after its file and gives it its labels (tsan, timing) where it is added.
#
# poolshim_apply_test_rules(<test> <own labels> <own environment>): sets the test's LABELS and
# ENVIRONMENT to its own plus the rules' (the sanitizer runtime and options), and DISABLED in a
# sanitizer build that cannot run it. Needs POOLSHIM_SANITIZE, POOLSHIM_SANITIZER_ENV,
# POOLSHIM_SANITIZER_INCOMPATIBLE, POOLSHIM_ASAN_INCOMPATIBLE and POOLSHIM_TSAN_INCOMPATIBLE in
# scope. The label tsan is never given here: a test has it from where it is added (its own
# labels), so renaming a test cannot change what ThreadSanitizer runs.
function(poolshim_apply_test_rules name labels environment)
  if(POOLSHIM_SANITIZE AND name MATCHES "${POOLSHIM_SANITIZER_INCOMPATIBLE}")
    set_tests_properties("${name}" PROPERTIES DISABLED TRUE)
  endif()
  if(POOLSHIM_SANITIZE MATCHES "address" AND name MATCHES "${POOLSHIM_ASAN_INCOMPATIBLE}")
    set_tests_properties("${name}" PROPERTIES DISABLED TRUE)
  endif()
  if(POOLSHIM_SANITIZE MATCHES "thread" AND name MATCHES "${POOLSHIM_TSAN_INCOMPATIBLE}")
    set_tests_properties("${name}" PROPERTIES DISABLED TRUE)
  endif()
  list(APPEND environment ${POOLSHIM_SANITIZER_ENV})
  if(environment)
    set_tests_properties("${name}" PROPERTIES ENVIRONMENT "${environment}")
  endif()
  if(labels)
    set_tests_properties("${name}" PROPERTIES LABELS "${labels}")
  endif()
endfunction()

# poolshim_process_test(<group> <name> COMMAND <command>... [TIMEOUT <s>] [LABELS <label>...]
#                       [TSAN] [TIMING] [RUN_SERIAL] [PASS_REGULAR_EXPRESSION <re>]
#                       [FAIL_REGULAR_EXPRESSION <re>])
# poolshim_process_test(<group> <name> SKIPPED <reason>)
# The one way a test of tests/process is added (configure time only; the CTest script above never
# calls it). The test is process.<group>.<name>, and <group> is the name of the file that adds it:
# a test of tests/process/foo.cmake is process.foo.* (checked here), so that `ctest -R
# process.foo.` runs one file's tests and a test's name says where it is defined. <name> is
# lower-case letters, digits, underscores and dashes.
#  - COMMAND: the test's command; an environment of its own goes in front as
#    `${CMAKE_COMMAND} -E env VAR=value...`, or through a driver's options (core_driver.py --env).
#  - TIMEOUT: CTest's watchdog in seconds (default 120); it only catches a hang.
#  - labels: process, <group>, then LABELS; tsan with TSAN (ThreadSanitizer runs it: never a
#    control that runs the fixtures' own pools on Debian's uninstrumented libpthreadpool); timing
#    with TIMING.
#  - TIMING: the test's verdict depends on timing or a rate (CPU time against wall time, a share
#    of samples, a percentage of calls) and can go red on a busy machine: label timing, which the
#    README's test command leaves out (scripts/test.sh runs ctest -LE timing; `scripts/test.sh -L
#    timing` runs these). Such a test runs alone (RUN_SERIAL). What the test checks that does not
#    depend on timing is a test of its own, without TIMING.
#  - a driver that exits POOLSHIM_SKIP_RC (77) reports the test Skipped (SKIP_RETURN_CODE).
#  - SKIPPED: the build lacks what the test needs; the test prints the reason and reports Skipped
#    (poolshim_skipped_test, label skipped).
function(poolshim_process_test group name)
  cmake_parse_arguments(ARG "TSAN;TIMING;RUN_SERIAL"
    "TIMEOUT;SKIPPED;PASS_REGULAR_EXPRESSION;FAIL_REGULAR_EXPRESSION" "COMMAND;LABELS" ${ARGN})
  get_filename_component(_file "${CMAKE_CURRENT_LIST_FILE}" NAME_WE)
  if(NOT group STREQUAL _file)
    message(FATAL_ERROR "poolshim_process_test(${group} ${name}) in ${CMAKE_CURRENT_LIST_FILE}: "
      "the group is the file's name (${_file})")
  endif()
  if(NOT name MATCHES "^[a-z0-9_-]+$")
    message(FATAL_ERROR "poolshim_process_test(${group} ${name}): a name is [a-z0-9_-]+")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "poolshim_process_test(${group} ${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(_test process.${group}.${name})
  if(DEFINED ARG_SKIPPED)
    poolshim_skipped_test(${_test} "${ARG_SKIPPED}")
    return()
  endif()
  if(NOT ARG_COMMAND)
    message(FATAL_ERROR "poolshim_process_test(${group} ${name}): no COMMAND")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  set(_labels process ${group} ${ARG_LABELS})
  if(ARG_TSAN)
    list(APPEND _labels tsan)
  endif()
  if(ARG_TIMING)
    list(APPEND _labels timing)
  endif()
  list(REMOVE_DUPLICATES _labels)
  add_test(NAME ${_test} COMMAND ${ARG_COMMAND})
  set_tests_properties(${_test} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${_labels}"
    SKIP_RETURN_CODE ${POOLSHIM_SKIP_RC})
  if(ARG_TIMING OR ARG_RUN_SERIAL)
    set_tests_properties(${_test} PROPERTIES RUN_SERIAL ON)
  endif()
  foreach(_p PASS_REGULAR_EXPRESSION FAIL_REGULAR_EXPRESSION)
    if(DEFINED ARG_${_p})
      set_tests_properties(${_test} PROPERTIES ${_p} "${ARG_${_p}}")
    endif()
  endforeach()
endfunction()
