#!/usr/bin/env bash
# The demo, in one command on a fresh machine: installs the missing Debian packages, builds the
# library, its command and the demo into build/ (the tree the README and scripts/test.sh use, so
# the library is then build/lib/libpoolshim.so), and prints the table (scenario x without/with the
# shim: pools, threads, median wall time of 5 runs) for two modules that each embed the legacy
# ExecuTorch-style pool (tests/fixtures/). Extra arguments go to the demo program:
#   scripts/demo.sh [--runs N] [--calls N] [--items N] [--spin-ns N]
# Build folder: $POOLSHIM_BUILD_DIR (default build/). Takes about a minute on 2 cores (most of it
# is the "without the shim" rows).
#
# The ratios mean something only on an otherwise idle machine: the load average is printed before
# and after, and when it is above the CPU count the verdict line says "machine busy, ratios
# unreliable" instead of met / NOT met.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/deps.sh build test

build="${POOLSHIM_BUILD_DIR:-build}"
# The demo program and its modules are test fixtures, so tests stay on; only the targets the demo
# needs are built (poolshim_demo depends on module_a, module_b and poolshim) plus the command.
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLSHIM_BUILD_TESTS=ON \
    -DPOOLSHIM_BUILD_TOOLS=ON >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target poolshim_demo poolshim poolshim_cli >/dev/null

cpus="$(nproc)"
load_before="$(cut -d' ' -f1 /proc/loadavg)"
echo "library: $build/lib/libpoolshim.so   command: $build/bin/poolshim"
echo "load average before: $load_before on $cpus CPUs"
busy=0
awk -v l="$load_before" -v c="$cpus" 'BEGIN { exit !(l > c) }' && busy=1

status=0
"$build/bin/poolshim_demo" "$@" | while IFS= read -r line; do
  if [ "$busy" = 1 ] && [[ "$line" == target* ]]; then
    line="${line%: NOT met}"
    echo "${line%: met}: machine busy (load $load_before on $cpus CPUs), ratios unreliable"
  else
    echo "$line"
  fi
done || status=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg) on $cpus CPUs"
exit "$status"
