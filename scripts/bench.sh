#!/usr/bin/env bash
# The benchmark suite (issue 5; docs/bench.md explains every scenario and layout). Builds a Release
# tree in build-release/ (the demo's), then measures, side by side in one run:
#   1. process bench: scenarios (ideal = one module; alternating caller; two and four concurrent
#      callers; legacy pools oversized 4x) x layouts (two static copies; the shared-library fix; the static
#      copies under LD_PRELOAD=libpoolshim.so; a host linked against libpoolshim.so), each cell a
#      fresh process, runs interleaved round-robin; median, min, max and the ratio to the ideal;
#   2. start-up cost (hyperfine): /bin/true and python3 -c pass, with and without the preload;
#   3. idle cost: resident memory and threads of hosts that load the shim and never use a pool;
#   4. micro-benchmarks (Google Benchmark): get_threadpool(), ThreadPool::run dispatch, and the
#      pthreadpool dispatch bench when it is built;
#   5. pthreadpool shapes: a C client linked to Debian's libpthreadpool, every parallelize shape
#      of Debian's header, raw against LD_PRELOAD=libpoolshim.so on 2 threads (per call of 2 and
#      64 tasks, per item), and the 2-task call's floors (spin-only dispatch between the pool's
#      own two threads, in each process; spin-only dispatch and libgomp in processes of their own);
#   6. OpenMP (bench/openmp_bench.sh, bench/results/openmp.md): EPCC overheads on libgomp, libomp
#      and the shim, and the PyTorch XNNPACK+aten loop; and LLVM OpenMP's __kmpc ABI
#      (bench/kmpc_bench.sh, bench/results/kmpc.md, where clang-14 is installed): a clang build's
#      overheads on libomp and under the shim, and the mixed OpenMP + pthreadpool program's threads;
# and writes bench/results/latest.md (tables, machine, targets met / MISSED: issues 5 and 8's,
# and issues 34 and 35's, judged on the raw data of 5 and 6) and latest.png.
#
# usage: scripts/bench.sh [--runs N] [--calls N] [--items N] [--spin-ns N] [--timeout S]
#                         [--micro-reps N] [--shape-reps N] [--no-build] [--build-dir DIR]
#                         [--out DIR]
# Defaults: 5 runs of 500 parallel_for calls of 64 items of 2.5 us; a process run is stopped after
# 20 s (reported as a lower bound); 7 repetitions per pthreadpool shape. About 4-5 minutes on an
# idle 2-core machine after the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

RUNS=5 CALLS=500 ITEMS=64 SPIN_NS=2500 TIMEOUT=20 MICRO_REPS=9 SHAPE_REPS=7 BUILD=1
BUILD_DIR=build-release OUT_DIR=bench/results
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --items) ITEMS=$2; shift 2 ;;
    --spin-ns) SPIN_NS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --micro-reps) MICRO_REPS=$2; shift 2 ;;
    --shape-reps) SHAPE_REPS=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --out) OUT_DIR=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "bench.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
for n in "$RUNS" "$CALLS" "$ITEMS" "$SPIN_NS" "$TIMEOUT" "$MICRO_REPS" "$SHAPE_REPS"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "bench.sh: '$n' is not a whole number" >&2; exit 2; }
done

log() { printf 'bench: %s\n' "$*" >&2; }

# ---------------------------------------------------------------------------------------- build
BUILD_DIR=$(realpath -m "$BUILD_DIR")
OUT_DIR=$(realpath -m "$OUT_DIR")
BIN=$BUILD_DIR/bin LIB=$BUILD_DIR/lib
DATA=$BUILD_DIR/bench-data   # raw measurements of the last run (the report is built from them)
PROCESS_TARGETS=(poolshim legacy_host legacy_host_linked module_a module_b module_shared_a
                 module_shared_b idle_host fork_cost_host)
MICRO_TARGETS=(executorch_get_threadpool_bench executorch_run_bench pthreadpool_dispatch_bench)
SHAPE_TARGETS=(ptp_shapes_bench dispatch_floor_bench)
if [ "$BUILD" = 1 ]; then
  scripts/deps.sh build test bench
  log "configuring and building $BUILD_DIR (Release)"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DPOOLSHIM_BUILD_TESTS=ON \
    -DPOOLSHIM_BUILD_BENCH=ON >/dev/null
  # Micro-bench targets that do not exist (yet) are skipped, not an error.
  known=$(cmake --build "$BUILD_DIR" --target help | awk '{print $2}')
  targets=("${PROCESS_TARGETS[@]}")
  for t in "${MICRO_TARGETS[@]}" "${SHAPE_TARGETS[@]}"; do grep -qx "$t" <<<"$known" && targets+=("$t"); done
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${targets[@]}" >/dev/null
fi
SHIM=$LIB/libpoolshim.so
for f in "$SHIM" "$BIN/legacy_host" "$BIN/legacy_host_linked" "$BIN/idle_host" \
         "$BIN/fork_cost_host" \
         "$LIB/module_shared_a.so"; do
  [ -e "$f" ] || { echo "bench.sh: $f is missing (build first, or drop --no-build)" >&2; exit 2; }
done
rm -rf "$DATA" && mkdir -p "$DATA" "$OUT_DIR"
START_S=$(date +%s)   # measurement time, without the build

CPUS=$(nproc)   # CPUs this process may run on (affinity): the "allowed CPUs"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# Every measured process gets a clean environment: no inherited preload, budget or logging.
CLEAN_ENV=(env -u LD_PRELOAD -u POOLSHIM_NUM_THREADS -u POOLSHIM_LOG -u POOLSHIM_LOG_FILE
           -u POOLSHIM_DISABLE -u LEGACY_ET_NUM_THREADS)

# ----------------------------------------------------------------------------- process bench
LAYOUTS=(static shared preload linked)
SCENARIOS=(ideal alternating concurrent concurrent4 oversized)
# concurrent4: four callers, one per module. Two more modules are copies of a and b under other
# file names (no SONAME: each path is loaded as a module of its own, with its own legacy pool).
for m in module_a module_b module_shared_a module_shared_b; do
  cp -f "$LIB/$m.so" "$LIB/bench_copy_$m.so"
done

# One measured process: appends "layout scenario run wall_ms pools threads status" to process.tsv.
run_cell() {
  local layout=$1 scenario=$2 run=$3
  local host=$BIN/legacy_host preload="" mods=("$LIB/module_a.so" "$LIB/module_b.so")
  local copies=("$LIB/bench_copy_module_a.so:module_a" "$LIB/bench_copy_module_b.so:module_b")
  case $layout in
    shared) mods=("$LIB/module_shared_a.so" "$LIB/module_shared_b.so")
            copies=("$LIB/bench_copy_module_shared_a.so:module_shared_a"
                    "$LIB/bench_copy_module_shared_b.so:module_shared_b") ;;
    preload) preload=$SHIM ;;
    linked) host=$BIN/legacy_host_linked ;;
  esac
  # Legacy pools are sized to the allowed CPUs (4x for "oversized"), on any machine.
  local mode=alternating legacy_threads=$CPUS
  case $scenario in
    ideal) mods=("${mods[0]}") ;;
    concurrent) mode=concurrent ;;
    concurrent4) mode=concurrent mods+=("${copies[@]}") ;;
    oversized) legacy_threads=$((4 * CPUS)) ;;
  esac
  local out rc=0
  out=$("${CLEAN_ENV[@]}" ${preload:+LD_PRELOAD=$preload} LEGACY_ET_NUM_THREADS=$legacy_threads \
        timeout -k 5 "$TIMEOUT" "$host" --scenario $mode --calls "$CALLS" --items "$ITEMS" \
        --spin-ns "$SPIN_NS" --time "${mods[@]}" 2>>"$DATA/stderr.log") || rc=$?
  local wall pools threads status
  wall=$(sed -n 's/^wall_ms=//p' <<<"$out")
  pools=$(sed -n 's/^pools=//p' <<<"$out")
  threads=$(sed -n 's/^threads=//p' <<<"$out")
  status=$(sed -n 's/^status=//p' <<<"$out")
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    wall=$((TIMEOUT * 1000)) status=timeout   # a lower bound: the run did not finish
  elif [ "$rc" != 0 ] || [ -z "$wall" ]; then
    status="failed(exit $rc)"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$layout" "$scenario" "$run" "${wall:-NA}" \
    "${pools:-?}" "${threads:-?}" "${status:-?}" >>"$DATA/process.tsv"
}

log "process bench: ${#SCENARIOS[@]} scenarios x ${#LAYOUTS[@]} layouts x $RUNS runs," \
    "$CALLS calls of $ITEMS items of $SPIN_NS ns"
: >"$DATA/process.tsv"
# Round-robin: run r of every cell before run r+1 of any, so a burst of load from elsewhere on
# the machine spreads over all cells instead of skewing one; the order of the cells is shuffled
# in each round (reproducibly: seeded by the round number), so no cell always follows a heavy one. A cell whose run timed out is not run again: its later runs
# would time out too, and the time bound of the whole bench matters more than copies of a bound.
for run in $(seq 1 "$RUNS"); do
  for cell in $(for s in "${SCENARIOS[@]}"; do for l in "${LAYOUTS[@]}"; do echo "$l/$s"; done; done |
                shuf --random-source=<(yes "$run")); do
    layout=${cell%/*} scenario=${cell#*/}
    grep -q "^$layout"$'\t'"$scenario"$'\t.*\ttimeout$' "$DATA/process.tsv" && continue
    run_cell "$layout" "$scenario" "$run"
  done
  log "  round $run/$RUNS done ($(( $(date +%s) - START_S )) s)"
done

# Per cell, scenarios then layouts in the order above:
# layout scenario ok median min max pools threads timeouts failures (stats.tsv).
awk -F'\t' -v scenarios="${SCENARIOS[*]}" -v layouts="${LAYOUTS[*]}" '
  function median(a, n,   i, j, t) {
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  BEGIN { ns = split(scenarios, sc, " "); nl = split(layouts, ly, " ")
          for (i = 1; i <= ns; i++) for (j = 1; j <= nl; j++) order[++nk] = ly[j] SUBSEP sc[i] }
  { k = $1 SUBSEP $2
    if ($4 != "NA") { v[k, ++n[k]] = $4 }
    seen[k] = 1; if ($5 != "?") pools[k] = $5; if ($6 != "?") threads[k] = $6
    if ($7 == "timeout") to[k]++; else if ($7 != "ok") bad[k]++ }
  END {
    for (c = 1; c <= nk; c++) {
      k = order[c]; if (!(k in seen)) continue; split(k, p, SUBSEP); m = n[k] + 0
      delete a; lo = ""; hi = ""
      for (i = 1; i <= m; i++) { a[i] = v[k, i]; if (lo == "" || a[i] < lo) lo = a[i]; if (hi == "" || a[i] > hi) hi = a[i] }
      med = m ? median(a, m) : "NA"
      printf "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", p[1], p[2], m, med, (m ? lo : "NA"), (m ? hi : "NA"),
        (k in pools ? pools[k] : "?"), (k in threads ? threads[k] : "?"), to[k], bad[k]
    }
  }' "$DATA/process.tsv" >"$DATA/stats.tsv"

# ------------------------------------------------------------------------------- start-up cost
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3)
# hyperfine runs all runs of one command, then the other: 3 rounds in alternating order, so that
# a drift in machine load does not favour one side. Per side: the median of the per-round wall
# medians, and of the per-round mean CPU times (user + system).
startup() {  # name runs command...  -> "name base_ms shim_ms base_cpu_ms shim_cpu_ms"
  local name=$1 runs=$2; shift 2
  local base="env -u LD_PRELOAD $*" shim="env LD_PRELOAD='$SHIM' $*" r
  for r in 1 2 3; do
    local first=$base second=$shim
    [ $((r % 2)) = 0 ] && first=$shim second=$base
    hyperfine --shell=none --style none --warmup 10 --runs "$runs" \
      --export-csv "$DATA/startup_${name}_$r.csv" "$first" "$second" >/dev/null 2>>"$DATA/stderr.log"
  done
  cat "$DATA"/startup_"${name}"_*.csv | awk -F, -v name="$name" '
    $1 == "command" { next }
    { gsub(/"/, "", $1)
      if ($1 ~ /LD_PRELOAD=/ && $1 !~ /-u LD_PRELOAD/) { s[++ns] = $4 * 1000; sc[ns] = ($5 + $6) * 1000 }
      else { b[++nb] = $4 * 1000; bc[nb] = ($5 + $6) * 1000 } }
    function med3(x) { return (x[1] <= x[2]) ? ((x[2] <= x[3]) ? x[2] : (x[1] <= x[3] ? x[3] : x[1])) : ((x[1] <= x[3]) ? x[1] : (x[2] <= x[3] ? x[3] : x[2])) }
    END { printf "%s\t%.3f\t%.3f\t%.3f\t%.3f\n", name, med3(b), med3(s), med3(bc), med3(sc) }'
}
if command -v hyperfine >/dev/null; then
  log "start-up cost (hyperfine)"
  { startup true 300 /bin/true; startup python3 40 "$PYTHON" -c pass; } >"$DATA/startup.tsv"
else
  log "hyperfine not found: start-up cost skipped (scripts/deps.sh bench installs it)"
  : >"$DATA/startup.tsv"
fi

# --------------------------------------------------------------------------------- idle cost
# Hosts that never ask for a pool report their own VmRSS (KiB) and thread count; the median of
# 7 runs each, with and without the preload. /bin/sh is a C program (the shim brings libstdc++
# with it); idle_host is C++ (libstdc++ already there); python3 is the interpreter users preload.
SH_PROBE='while IFS= read -r l; do case $l in VmRSS:*|Threads:*) echo "$l";; esac; done </proc/self/status'
PY_PROBE='print(open("/proc/self/status").read())'
idle_probe() {  # name preload(0/1) -> "rss threads"
  local pre=()
  [ "$2" = 1 ] && pre=(LD_PRELOAD="$SHIM")
  case $1 in
    sh) "${CLEAN_ENV[@]}" "${pre[@]}" /bin/sh -c "$SH_PROBE" ;;
    python3) "${CLEAN_ENV[@]}" "${pre[@]}" "$PYTHON" -c "$PY_PROBE" ;;
    idle_host) "${CLEAN_ENV[@]}" "${pre[@]}" "$BIN/idle_host" | tr ' ' '\n' ;;
  esac | awk -F'[:=[:space:]]+' '/^(VmRSS|rss_kib)/ { r = $2 } /^(Threads|threads)/ { t = $2 } END { print r, t }'
}
log "idle cost (VmRSS, threads)"
: >"$DATA/idle.tsv"
for host in sh idle_host python3; do
  for pre in 0 1; do
    for i in 1 2 3 4 5 6 7; do idle_probe "$host" "$pre"; done | sort -n | sed -n 4p |
      awk -v h="$host" -v p="$pre" '{ printf "%s\t%s\t%s\t%s\n", h, p, $1, $2 }' >>"$DATA/idle.tsv"
  done
done

# A host that forks (a shell, make, multiprocessing) runs the shim's fork handlers in every child:
# fork_cost_host forks 400 children, 5 rounds alternating with and without the preload; per side
# the median of the rounds' faults per child and microseconds per fork.
log "fork cost (faults per child, time per fork)"
for r in 1 2 3 4 5; do
  for pre in 0 1; do
    p=()
    [ "$pre" = 1 ] && p=(LD_PRELOAD="$SHIM")
    "${CLEAN_ENV[@]}" "${p[@]}" "$BIN/fork_cost_host" 400 |
      awk -F'[= ]' -v p="$pre" '{ printf "%s\t%s\t%s\n", p, $2, $4 }'
  done
done | awk -F'\t' '{ n[$1]++; f[$1, n[$1]] = $2; t[$1, n[$1]] = $3 }
  function med(a, k, m,   i, j, v, x) { for (i = 1; i <= m; i++) v[i] = a[k, i]
    for (i = 2; i <= m; i++) { x = v[i]; for (j = i - 1; j > 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
    return v[int((m + 1) / 2)] }
  END { for (k = 0; k <= 1; k++) printf "%d\t%.1f\t%.1f\n", k, med(f, k, n[k]), med(t, k, n[k]) }' \
  >"$DATA/fork.tsv"

# ----------------------------------------------------------------------------- micro-benchmarks
# Each side gets processes of its own: Debian's pthreadpool workers spin-wait (about 20 ms) after
# every call, so a "raw" pool and a "shim" pool active in one process steal CPUs from each other
# (the very problem poolshim fixes) and the comparison would measure that. Benchmarks whose name
# has a /raw or /shim component run in that side's processes (anything else with raw), in ABBA
# order (raw, shim, shim, raw) so a drift in machine load hits both sides alike; within a process,
# repetitions are interleaved at random. The median is over every repetition of both passes.
micro_pass() {  # exe regex tag
  "${CLEAN_ENV[@]}" "$BIN/$1" --benchmark_filter="$2" --benchmark_repetitions="$PASS_REPS" \
    --benchmark_report_aggregates_only=false --benchmark_enable_random_interleaving=true \
    --benchmark_min_time=0.1 \
    --benchmark_out="$DATA/$1.$3.csv" --benchmark_out_format=csv >/dev/null 2>>"$DATA/stderr.log"
}
PASS_REPS=$(( (MICRO_REPS + 1) / 2 ))
: >"$DATA/micro.tsv"
for exe in "${MICRO_TARGETS[@]}"; do
  [ -x "$BIN/$exe" ] || { log "micro: $exe not built, skipped"; continue; }
  log "micro: $exe ($((2 * PASS_REPS)) repetitions per benchmark)"
  names=$("${CLEAN_ENV[@]}" "$BIN/$exe" --benchmark_list_tests=true 2>>"$DATA/stderr.log") || names=""
  shim_re=$(grep -E '/shim(/|$)' <<<"$names" | paste -sd'|' -) || true
  raw_re=$(grep -vE '/shim(/|$)' <<<"$names" | paste -sd'|' -) || true
  ok=1
  for pass in raw1 shim1 shim2 raw2; do
    re=$raw_re; [ "${pass%?}" = shim ] && re=$shim_re
    [ -n "$re" ] || continue
    micro_pass "$exe" "^($re)\$" "$pass" || { ok=0; log "micro: $exe ($pass) failed (see $DATA/stderr.log)"; }
  done
  [ "$ok" = 1 ] || continue
  # Per-repetition rows (quoted name, iterations, real_time, cpu_time, unit): median per name.
  cat "$DATA/$exe".*.csv | awk -F, -v exe="$exe" '
    $1 ~ /^"/ && $1 !~ /_(mean|median|stddev|cv)"$/ && $3 != "" {
      n = $1; gsub(/"/, "", n); if (!(n in c)) order[++k] = n; v[n, ++c[n]] = $3; unit[n] = $5 }
    END { for (i = 1; i <= k; i++) { n = order[i]; m = c[n]
      for (a = 2; a <= m; a++) { t = v[n, a]; for (b = a - 1; b >= 1 && v[n, b] > t; b--) v[n, b + 1] = v[n, b]; v[n, b + 1] = t }
      med = m % 2 ? v[n, (m + 1) / 2] : (v[n, m / 2] + v[n, m / 2 + 1]) / 2
      printf "%s\t%s\t%s\t%s\n", exe, n, med, unit[n] } }' >>"$DATA/micro.tsv"
done

# --------------------------------------------------------------------------- pthreadpool shapes
# ptp_shapes_bench is a C client linked to Debian's libpthreadpool; "shim" is the same binary
# under LD_PRELOAD. 2 threads on both sides (the shim's budget set to 2 as well). ABBA passes,
# each a process of its own (see the micro-benchmarks for why). Every line of shapes.tsv:
# side pass shape metric rep ns. The floors (dispatch_floor_bench) go in as sides "spin" and
# "omp", shape "floor", metric call2.
: >"$DATA/shapes.tsv"
if [ -x "$BIN/ptp_shapes_bench" ]; then
  log "pthreadpool shapes: raw vs LD_PRELOAD, 2 threads, $SHAPE_REPS repetitions per pass"
  for pass in raw1 shim1 shim2 raw2; do
    side=${pass%?} pre=()
    [ "$side" = shim ] && pre=(LD_PRELOAD="$SHIM" POOLSHIM_NUM_THREADS=2)
    "${CLEAN_ENV[@]}" "${pre[@]}" timeout -k 5 120 "$BIN/ptp_shapes_bench" --threads 2 \
      --reps "$SHAPE_REPS" 2>>"$DATA/stderr.log" |
      awk -v side="$side" -v pass="$pass" '{ print side "\t" pass "\t" $0 }' >>"$DATA/shapes.tsv" ||
      log "pthreadpool shapes: pass $pass failed (see $DATA/stderr.log)"
  done
  if [ -x "$BIN/dispatch_floor_bench" ]; then
    for pass in 1 2; do
      for mode in spin omp; do
        "${CLEAN_ENV[@]}" OMP_NUM_THREADS=2 timeout -k 5 60 "$BIN/dispatch_floor_bench" "$mode" \
          --reps "$SHAPE_REPS" 2>>"$DATA/stderr.log" |
          awk -v pass="$mode$pass" '{ print $1 "\t" pass "\tfloor\t" $2 "\t" $3 "\t" $4 }' \
          >>"$DATA/shapes.tsv" || log "dispatch floor: $mode failed"
      done
    done
  fi
else
  log "pthreadpool shapes: ptp_shapes_bench not built, skipped"
fi
# 5. four processes with and without POOLSHIM_GROUP (its own script; writes $OUT_DIR/group.md)
"$ROOT/bench/group_bench.sh" --no-build --build-dir "$BUILD_DIR" --out "$OUT_DIR" --runs "$RUNS" \
  >/dev/null 2>>"$DATA/stderr.log" || log "group bench failed (see $DATA/stderr.log)"
# 6. OpenMP: EPCC-style overheads on libgomp, libomp and the shim, and the PyTorch mixed loop
# (its own script; writes $OUT_DIR/openmp.md; docs/openmp.md)
"$ROOT/bench/openmp_bench.sh" "$SHIM" "$OUT_DIR" 3 "$DATA" >/dev/null 2>>"$DATA/stderr.log" ||
  log "OpenMP bench failed (see $DATA/stderr.log)"
if command -v clang-14 >/dev/null; then
  "$ROOT/bench/kmpc_bench.sh" "$SHIM" "$OUT_DIR" 5 20000 "$DATA" >/dev/null 2>>"$DATA/stderr.log" ||
    log "__kmpc bench failed (see $DATA/stderr.log)"
else
  log "__kmpc bench: no clang-14 (scripts/deps.sh openmp installs it), skipped"
fi

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$(( $(date +%s) - START_S ))

# ------------------------------------------------------------------------ report and chart
export RUNS CALLS ITEMS SPIN_NS TIMEOUT MICRO_REPS SHAPE_REPS CPUS LOAD_BEFORE LOAD_AFTER ELAPSED PYTHON
"$ROOT/bench/report.sh" "$DATA" "$OUT_DIR"
log "wrote $OUT_DIR/latest.md and $OUT_DIR/latest.png in ${ELAPSED} s of measurement (raw data: $DATA)"
