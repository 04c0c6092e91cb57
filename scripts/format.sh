#!/bin/sh
# Formats the C and C++ sources with .clang-format (clang-format from Debian: scripts/deps.sh format).
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  list the files that are not formatted, exit 1 if there are any
# Not yet formatted (their owners were changing them when the format was introduced; they join
# the list below once those changes have landed): the scheduler (shim/core/pool.cpp, job.h,
# workers.cpp, busy.cpp, pool.h, size.cpp), budget/budget.cpp, the pthreadpool and ExecuTorch
# surfaces and their unit tests, the OpenMP surface, the command's info_cmd.cpp and pools_cmd.cpp,
# the fixtures, the benchmarks and pool_test.cpp.
set -eu
cd "$(dirname "$0")/.."
pending='^(shim/core/(pool\.cpp|pool\.h|job\.h|workers\.cpp|busy\.cpp|size\.cpp|team\.cpp)|shim/budget/budget\.cpp|shim/abi/pthreadpool/|shim/abi/executorch/|tests/unit/pthreadpool_|shim/abi/openmp/|tools/(info_cmd|pools_cmd)\.cpp|tests/fixtures/|tests/package/|bench/|tests/unit/pool_test\.cpp)'
files=$(git ls-files 'shim/*.cpp' 'shim/*.h' 'tools/*.cpp' 'tools/*.h' 'tests/*.cpp' 'tests/*.h' 'include/*.h' | grep -Ev "$pending")
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in $files; do
    if ! clang-format "$f" | cmp -s - "$f"; then echo "$f"; bad=1; fi
  done
  exit $bad
fi
# shellcheck disable=SC2086
clang-format -i $files
