#!/usr/bin/env bash
# LLVM OpenMP's __kmpc ABI on the one pool (issue 35; docs/openmp.md, "LLVM's and Intel's
# OpenMP"): side by side in one run, interleaved rounds,
#   1. EPCC-style overheads (bench/openmp_overheads_bench.c built by clang-14 -fopenmp: every
#      __kmpc call it makes is native, tasks included), microseconds per construct at 2
#      threads, on LLVM's libomp (no shim), under the preload (POOLSHIM_KMPC=forward, the
#      default: the calls pass the shim and go to libomp) and with POOLSHIM_KMPC=shim (the native
#      __kmpc runtime), with the native/libomp ratio of the medians;
#   2. the mixed program (tests/fixtures/openmp/kmpc_mixed.c: OpenMP regions and pthreadpool
#      calls), its threads with a budget of 2 in each variant (the median over the rounds).
# Needs clang-14 and libomp-14-dev (scripts/deps.sh openmp), libpthreadpool-dev for part 2.
# Each construct runs in a process of its own (bench/openmp_bench.sh says why); within a round the
# variants of one construct run one after the other, and each round first records the host's
# mode (bench/host_mode.sh), printed above the table. Writes
# OUT/kmpc.md; with DATA_DIR, also the raw lines the report judges issue 35's target on
# (DATA_DIR/kmpc_epcc.txt: "variant construct us") and the probes (DATA_DIR/kmpc_floor.txt:
# "round ns").
# usage: bench/kmpc_bench.sh SHIM OUT_DIR [ROUNDS [REPS [DATA_DIR]]]
set -euo pipefail
shim=$(realpath "$1") out=$2 rounds=${3:-7} reps=${4:-20000} data=${5:-}
constructs=(parallel for barrier single critical reduction parallel_task master_task nested_task
  nested_master_task branch_task_tree dynamic_1 dynamic_4 dynamic_32 guided_1)
mkdir -p "$out"
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
clang-14 -fopenmp -O2 "$here/openmp_overheads_bench.c" -o "$work/epcc"
mixed=""
if clang-14 -fopenmp -O2 "$here/../tests/fixtures/openmp/kmpc_mixed.c" -o "$work/mixed" \
    -lpthreadpool 2>/dev/null; then
  mixed="$work/mixed"
fi
clean() { env -u LD_PRELOAD -u OMP_NUM_THREADS -u POOLSHIM_KMPC OMP_NUM_THREADS=2 "$@"; }
declare -A variant=(
  [libomp]=""
  [shim-forward]="LD_PRELOAD=$shim"
  [shim-native]="LD_PRELOAD=$shim POOLSHIM_KMPC=shim")
order=(libomp shim-forward shim-native)
source "$here/host_mode.sh"
host_mode_build "$work" || true
for r in $(seq 1 "$rounds"); do
  host_mode_probe "$work" "$r"
  # Construct by construct, the variants one after the other: the processes a ratio compares
  # run seconds apart, within one mode of the host (host_mode.sh).
  for c in "${constructs[@]}"; do
    for v in "${order[@]}"; do
      clean env ${variant[$v]} "$work/epcc" "$reps" "$c" | sed "s/^/$v /" >> "$work/epcc.txt"
    done
  done
  for v in "${order[@]}"; do
    if [ -n "$mixed" ]; then
      clean env ${variant[$v]} POOLSHIM_NUM_THREADS=2 "$mixed" 2>&1 >/dev/null |
        sed -n "s/^threads=/$v threads /p" >> "$work/mixed.txt"
    fi
  done
done
median() { sort -g | awk '{a[NR]=$1} END {if (!NR) {print "-"; exit}; print a[int((NR+1)/2)]}'; }
value() { awk -v v="$1" -v c="$2" '$1==v && $2==c {print $3}' "$3" | median; }
{
  echo "# LLVM OpenMP (__kmpc) bench"
  echo
  echo "$(date -u +%Y-%m-%d) on $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds of $reps reps, median of rounds."
  echo
  host_mode_line "$work"
  echo
  echo "## EPCC-style overheads of the clang-14 build, microseconds per construct, 2 threads"
  echo
  echo "| construct | libomp | shim, forwarding | shim, native | native/libomp |"
  echo "|---|---|---|---|---|"
  for c in "${constructs[@]}"; do
    a=$(value libomp "$c" "$work/epcc.txt")
    f=$(value shim-forward "$c" "$work/epcc.txt")
    n=$(value shim-native "$c" "$work/epcc.txt")
    ratio=$(awk -v a="$a" -v n="$n" 'BEGIN {if (a > 0.005) printf "%.2f", n / a; else print "-"}')
    echo "| $c | $a | $f | $n | $ratio |"
  done
  if [ -n "$mixed" ]; then
    echo
    echo "## The mixed OpenMP + pthreadpool program: threads, budget 2 (median of rounds)"
    echo
    echo "| libomp | shim, forwarding | shim, native |"
    echo "|---|---|---|"
    echo "| $(value libomp threads "$work/mixed.txt") | $(value shim-forward threads "$work/mixed.txt") | $(value shim-native threads "$work/mixed.txt") |"
  fi
} > "$out/kmpc.md"
if [ -n "$data" ]; then cp "$work/epcc.txt" "$data/kmpc_epcc.txt"; fi
if [ -n "$data" ] && [ -s "$work/floor.txt" ]; then cp "$work/floor.txt" "$data/kmpc_floor.txt"; fi
cat "$out/kmpc.md"
