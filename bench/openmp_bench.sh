#!/usr/bin/env bash
# OpenMP on the one pool (issue 18; docs/openmp.md): side by side in one run,
#   1. EPCC-style overheads (bench/openmp_overheads_bench.c, microseconds per construct) of an
#      empty parallel, for, barrier, single, critical and reduction, EPCC's task constructs
#      (tasks from every thread, from the master, inside tasks, a task tree) and dynamic/guided
#      schedules, at 2 threads, on GCC's
#      libgomp, LLVM's libomp (Debian libomp5-14, preloaded as users do: it implements the GOMP
#      ABI), the shim forwarding to libgomp (POOLSHIM_OPENMP=forward) and the shim's native
#      runtime (the default);
#   2. the PyTorch mixed loop (bench/openmp_torch_loop.py, Debian python3-torch): XNNPACK op +
#      aten op per iteration, without the shim, with OMP_WAIT_POLICY=passive, preloaded, native,
#      and each op alone under the preload (the sum of its parts), with the results' digests;
#      then the small ops alternating (bench/torch_alternating.py, each op timed): one thread
#      without the shim (the caches' floor), two under the shim, forwarding and native;
#   3. task parallelism (bench/openmp_tasks_bench.c): single + 1000 tasks of ~10 us, the same
#      work as taskloops, and 100 tasks that sleep 100 us, at 2 threads, on the four variants of
#      1 (milliseconds, best of 5 per round, and how many threads ran the work);
#   4. regions from two initial threads at once (bench/openmp_callers_bench.c): 2 callers x 3000
#      regions of 4 threads and x 20000 regions of 2, 16 callers x 400 regions of 2 (each keeping
#      a thread beyond the budget), 1 caller x 200 regions of 64 (milliseconds, and the
#      member-regions that lost their threadprivate value), on the four variants of 1.
# Rounds interleave the variants (an EPCC construct's variants one after the other, each round
# after a probe of the host's mode: bench/host_mode.sh); each construct runs in a process of its
# own (a construct run after others carries what they left behind: threads asleep, a kept seat;
# docs/openmp.md, "One process per construct"). Writes OUT/openmp.md; with DATA_DIR, also the
# raw lines the report judges issue 34's targets on (DATA_DIR/openmp_epcc.txt: "variant
# construct us"; DATA_DIR/torch_alternating.txt: "variant ratio") and the probes
# (DATA_DIR/openmp_floor.txt: "round ns").
# usage: bench/openmp_bench.sh SHIM OUT_DIR [ROUNDS [DATA_DIR]]
set -euo pipefail
shim=$1 out=$2 rounds=${3:-3} data=${4:-}
constructs=(parallel for barrier single critical reduction parallel_task master_task nested_task
  nested_master_task branch_task_tree dynamic_1 dynamic_4 dynamic_32 guided_1)
here="$(cd "$(dirname "$0")" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
libomp=/usr/lib/x86_64-linux-gnu/libomp.so.5
gcc -fopenmp -O2 "$here/openmp_overheads_bench.c" -o "$work/epcc"
gcc -fopenmp -O2 "$here/openmp_tasks_bench.c" -o "$work/tasks"
gcc -fopenmp -O2 "$here/openmp_callers_bench.c" -o "$work/callers" -lpthread
clean() { env -u LD_PRELOAD -u OMP_NUM_THREADS -u OMP_WAIT_POLICY -u POOLSHIM_OPENMP OMP_NUM_THREADS=2 "$@"; }
declare -A variant=(
  [libgomp]=""
  [libomp]="LD_PRELOAD=$libomp"
  [shim-forward]="LD_PRELOAD=$shim POOLSHIM_OPENMP=forward"
  [shim-native]="LD_PRELOAD=$shim POOLSHIM_OPENMP=shim")
order=(libgomp libomp shim-forward shim-native)  # the tables' columns
measured=("${order[@]}")  # the variants run: libomp's only where it is installed
[ -e "$libomp" ] || measured=(libgomp shim-forward shim-native)
source "$here/host_mode.sh"
host_mode_build "$work" || true
for r in $(seq 1 "$rounds"); do
  host_mode_probe "$work" "$r"
  # Construct by construct, the variants one after the other: the processes a ratio compares
  # run seconds apart, within one mode of the host (host_mode.sh).
  for c in "${constructs[@]}"; do
    for v in "${measured[@]}"; do
      clean env ${variant[$v]} "$work/epcc" 20000 "$c" | sed "s/^/$v /" >> "$work/epcc.txt"
    done
  done
  for v in "${measured[@]}"; do
    clean env ${variant[$v]} "$work/tasks" 1000 10 5 | sed "s/^/$v /" >> "$work/tasks.txt"
    for a in "2 3000 4" "2 20000 2" "16 400 2" "1 200 64"; do
      clean env ${variant[$v]} "$work/callers" $a | sed "s/^/$v /" >> "$work/callers.txt"
    done
  done
done
# One table row per name: each variant's median over the rounds of the value ($3 of the lines
# "variant name value [threads]"), with the threads that ran work in parentheses when given.
rows() {
  local file=$1 c v m row
  shift
  for c in "$@"; do
    row="| $c |"
    for v in "${order[@]}"; do
      m=$(awk -v v="$v" -v c="$c" '$1==v && $2==c {print $3, $4}' "$file" | sort -g |
          awk '{a[NR]=$1; u[NR]=$2} END {if (!NR) {print "-"; exit}; k=int((NR+1)/2)
               print a[k] (u[k] != "" ? " (" u[k] ")" : "")}')
      row="$row $m |"
    done
    echo "$row"
  done
}
{
  echo "# OpenMP bench"
  echo
  echo "$(date -u +%Y-%m-%d) on $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, median of rounds."
  echo
  host_mode_line "$work"
  echo
  echo "## EPCC-style overheads, microseconds per construct, 2 threads"
  echo
  echo "| construct | libgomp | libomp (preloaded) | shim, forwarding | shim, native |"
  echo "|---|---|---|---|---|"
  rows "$work/epcc.txt" "${constructs[@]}"
  echo
  echo "## Task parallelism, milliseconds (1000 x ~10 us of work), 2 threads: median (threads that ran work)"
  echo
  echo "| variant | libgomp | libomp (preloaded) | shim, forwarding | shim, native |"
  echo "|---|---|---|---|---|"
  rows "$work/tasks.txt" tasks taskloop-grainsize1 taskloop-2-per-thread tasks-sleep
  echo
  echo "## Initial threads at once, milliseconds (member-regions that lost their threadprivate value)"
  echo
  echo "| callers x threads | libgomp | libomp (preloaded) | shim, forwarding | shim, native |"
  echo "|---|---|---|---|---|"
  rows "$work/callers.txt" callers-2x4 callers-2x2 callers-16x2 callers-1x64
} > "$out/openmp.md"
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  loop() { clean env "$@" /usr/bin/python3 "$here/openmp_torch_loop.py" 2 1000; }
  for r in $(seq 1 "$rounds"); do
    { echo "no-shim $(loop)"; echo "passive $(loop OMP_WAIT_POLICY=passive)"
      echo "shim-forward $(loop LD_PRELOAD="$shim" POOLSHIM_OPENMP=forward)"; echo "shim-native $(loop LD_PRELOAD="$shim" POOLSHIM_OPENMP=shim)"
      echo "xnnpack-alone $(clean env LD_PRELOAD="$shim" /usr/bin/python3 "$here/openmp_torch_loop.py" 2 1000 xnnpack)"
      echo "aten-alone $(clean env LD_PRELOAD="$shim" /usr/bin/python3 "$here/openmp_torch_loop.py" 2 1000 aten)"
    } >> "$work/torch.txt"
  done
  {
    echo
    echo "## PyTorch mixed loop (1000 iterations, set_num_threads(2)), seconds"
    echo
    echo "| variant | median | min | max | digest |"
    echo "|---|---|---|---|---|"
    for v in no-shim passive shim-forward shim-native xnnpack-alone aten-alone; do
      awk -v v="$v" '$1==v {sub("s","",$3); print $3, $4}' "$work/torch.txt" | sort -g |
        awk -v v="$v" '{a[NR]=$1; d=$2} END {printf "| %s | %s | %s | %s | %s |\n", v, a[int((NR+1)/2)], a[1], a[NR], d}'
    done
  } >> "$out/openmp.md"
  alt() { clean env "$@" /usr/bin/python3 "$here/torch_alternating.py" 1000 2>/dev/null; }
  {
    echo
    echo "## Small ops alternating (bench/torch_alternating.py, 1000 iterations), one line a run"
    echo
    for r in $(seq 1 "$rounds"); do
      echo "- 1 thread, no shim: $(clean env /usr/bin/python3 "$here/torch_alternating.py" 1000 1 2>/dev/null)"
      echo "- 2 threads, shim forwarding: $(alt LD_PRELOAD="$shim" POOLSHIM_OPENMP=forward)"
      echo "- 2 threads, shim native: $(alt LD_PRELOAD="$shim")"
    done
  } >> "$out/openmp.md"
  # "variant ratio" for the report: the alternating loop over the sum of its parts.
  if [ -n "$data" ]; then
    sed -n 's/^- \(.*\): .*ratio=\([0-9.]*\).*/\1\t\2/p' "$out/openmp.md" > "$data/torch_alternating.txt"
  fi
fi
if [ -n "$data" ]; then cp "$work/epcc.txt" "$data/openmp_epcc.txt"; fi
if [ -n "$data" ] && [ -s "$work/floor.txt" ]; then cp "$work/floor.txt" "$data/openmp_floor.txt"; fi
cat "$out/openmp.md"
