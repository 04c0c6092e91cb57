# The suite-wide rules that apply to a test by its name (the lists are set and explained in
# tests/CMakeLists.txt). Read in two places, so that a rule is written once:
#  - at configure time, by poolshim_test_rules() (tests/CMakeLists.txt), for the tests add_test()
#    registers;
#  - at test time, by the CTest script poolshim_discovered_test_rules() writes, for the unit tests
#    that gtest_discover_tests() registers only when CTest reads the build tree (their names do
#    not exist at configure time). CTest runs that script in its own interpreter: this file uses
#    only commands that CTest knows (no set_property, no get_test_property).
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
