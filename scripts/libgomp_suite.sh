#!/usr/bin/env bash
# GCC's libgomp testsuite (host C and C++ tests) without and with the shim: the OpenMP oracle.
# Installs gcc-12-source (the tarball the tests are extracted from at run time) through
# scripts/deps.sh, then runs scripts/libgomp_suite.py with the given options:
#   --subset N     N tests spread over the list (CI's fast subset)
#   --native       a third column: the native runtime (the default; the "shim" column forwards)
#   --clang        two more: built by clang-14 on LLVM's libomp, without and with the preload
#                  (with --native a third: the preload with POOLSHIM_KMPC=shim)
#   --match REGEX  only matching tests;  --jobs J;  --timeout S;  --out FILE;  --work DIR
#   --shim PATH    the library (default build/lib/libpoolshim.so)
# Exit status 1 when a test that passes with libgomp fails under the shim.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build openmp
exec python3 scripts/libgomp_suite.py "$@"
