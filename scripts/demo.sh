#!/usr/bin/env bash
# The demo, in one command on a fresh machine: installs the missing Debian packages, builds a
# Release tree in build-release/, and prints the table (scenario x without/with the shim: pools,
# threads, median wall time of 5 runs) for two modules that each embed the legacy ExecuTorch-style
# pool (tests/fixtures/). Extra arguments go to the demo program:
#   scripts/demo.sh [--runs N] [--calls N] [--items N] [--spin-ns N]
# Takes about a minute on 2 cores (most of it is the "without the shim" rows).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/deps.sh build test

# The demo program and its modules are test fixtures, so tests stay on; only the targets the
# demo needs are built (poolshim_demo depends on module_a, module_b and poolshim).
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DPOOLSHIM_BUILD_TESTS=ON >/dev/null
cmake --build build-release -j"$(nproc)" --target poolshim_demo >/dev/null

exec build-release/bin/poolshim_demo "$@"
