#!/usr/bin/env bash
# Builds poolshim with its tests and runs the whole suite; the last lines are CTest's summary.
# Installs the Debian packages it needs when they are missing (scripts/deps.sh).
# Usage: scripts/test.sh [extra ctest args...]     Build dir: $POOLSHIM_BUILD_DIR (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh build test bench
build="${POOLSHIM_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPOOLSHIM_BUILD_TESTS=ON -DPOOLSHIM_BUILD_TOOLS=ON -DPOOLSHIM_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j"$jobs"
# Each test is its own process; two at a time on a 2-core machine. No test asserts on time.
exec ctest --test-dir "$build" --output-on-failure -j"$jobs" "$@"
