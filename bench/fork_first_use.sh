#!/usr/bin/env bash
# fork() inside the shim's first-use initialisation, 1000 rounds (CI runs 200:
# process.fork_exit.fork_inside_first_use_initialisation). Each round is a fresh process whose
# second thread is held inside one of the shim's once routines (budget, busy count, ExecuTorch
# handle; by the host's test hook, shim/base/first_use.h) while its main thread forks at a random
# delay of 0 to 3 ms; the child calls on every surface from two threads. Not a timing bench: it
# prints the tally (rounds, held, ok, parallel, wrong, hung, crashed) and fails unless every
# round was held, right and parallel.
#
# usage: bench/fork_first_use.sh [--rounds N] [--seed S] [--build-dir DIR] [--no-build]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=1000 SEED=$RANDOM BUILD=1 BUILD_DIR=build
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "fork_first_use.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
for n in "$ROUNDS" "$SEED"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "fork_first_use.sh: '$n' is not a whole number" >&2; exit 2; }
done
BUILD_DIR=$(realpath -m "$BUILD_DIR")
if [ "$BUILD" = 1 ]; then
  cmake -S . -B "$BUILD_DIR" -DPOOLSHIM_BUILD_TESTS=ON >/dev/null
  cmake --build "$BUILD_DIR" -j2 --target poolshim fork_first_use_host >/dev/null
fi
echo "seed=$SEED"
exec env LD_PRELOAD="$BUILD_DIR/lib/libpoolshim.so" POOLSHIM_NUM_THREADS=4 \
  timeout 1800 "$BUILD_DIR/bin/fork_first_use_host" --rounds "$ROUNDS" --seed "$SEED"
