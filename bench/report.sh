#!/usr/bin/env bash
# Writes the benchmark report from the raw measurements scripts/bench.sh left in DATA_DIR:
#   OUT_DIR/latest.md   machine, parameters, targets met / MISSED, every table
#   OUT_DIR/latest.png  wall time per scenario and layout (gnuplot, log scale)
# usage: bench/report.sh DATA_DIR OUT_DIR   (run by scripts/bench.sh, which exports RUNS, CALLS,
# ITEMS, SPIN_NS, TIMEOUT, MICRO_REPS, CPUS, LOAD_BEFORE, LOAD_AFTER, ELAPSED, PYTHON)
# Input files (tab-separated):
#   stats.tsv    layout scenario ok_runs median_ms min_ms max_ms pools threads timeouts failures
#   startup.tsv  name base_ms shim_ms
#   idle.tsv     host preloaded(0/1) rss_kib threads
#   fork.tsv     preloaded(0/1) faults_per_child us_per_fork   (fork_cost_host, medians of 5 rounds)
#   micro.tsv    program benchmark median_real_time unit
#   shapes.tsv   side pass shape metric rep ns   (side raw|shim; spin|omp for shape "floor")
#   openmp_epcc.txt, kmpc_epcc.txt   variant construct us   (bench/openmp_bench.sh, kmpc_bench.sh;
#                a line a round, rounds in order)
#   openmp_floor.txt, kmpc_floor.txt   round ns   (the host's mode per round: bench/host_mode.sh)
#   torch_alternating.txt   variant<TAB>ratio   (bench/openmp_bench.sh)
set -euo pipefail
DATA=$1 OUT=$2
MD=$OUT/latest.md PNG=$OUT/latest.png
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Targets (issue 5, point 4). Reported, never asserted.
T_SCENARIO=1.05 T_OUTLIER=1.3 T_DISPATCH=1.05 T_STARTUP_MS=1 T_RSS_KIB=256
# pthreadpool shapes (issue 8): each shim/raw pair, the worst repetition against its median, and
# the moonshot (a 2-task empty call against the spin-only floor).
T_SHAPE=1.05 T_SHAPE_OUTLIER=1.3 T_MOON_FLOOR=1.5
# Issue 34: per item against raw Debian on every shape; every EPCC construct against libgomp (the
# median of the rounds, and each round), the small-op PyTorch loop against its parts. Issue 35:
# every construct of the clang build against libomp. A construct whose baseline median is under
# T_EPCC_RES us is below what the bench resolves (EPCC's overhead is a difference of two timings
# of 20000 repetitions): it is listed with its figures, not judged by a ratio.
T_ITEM=0.5 T_EPCC=1.0 T_EPCC_ROUND=1.5 T_EPCC_RES=0.005 T_ALTERNATING=1.1

layout_name() {
  case $1 in
    static) echo "two static copies" ;;
    shared) echo "shared-library fix" ;;
    preload) echo "static copies + LD_PRELOAD poolshim" ;;
    linked) echo "host linked to libpoolshim.so" ;;
    *) echo "$1" ;;
  esac
}
verdict() { awk -v x="$1" -v lim="$2" 'BEGIN { print (x != "" && x + 0 <= lim + 0) ? "met" : "**MISSED**" }'; }

IDEAL=$(awk -F'\t' '$1 == "static" && $2 == "ideal" { print $4 }' "$DATA/stats.tsv")
[ -n "$IDEAL" ] && [ "$IDEAL" != NA ] || IDEAL=""

# ------------------------------------------------------------------------------- tables
# Matrix: one row per scenario, one column per layout: "median ms (x ideal)".
matrix() {
  awk -F'\t' -v ideal="$IDEAL" -v timeout="$TIMEOUT" '
    { if (!($2 in srow)) { srow[$2] = 1; sc[++ns] = $2 } if (!($1 in lcol)) { lcol[$1] = 1; ly[++nl] = $1 }
      cell[$2, $1] = ($4 == "NA") ? "failed" : sprintf("%s%.0f (%.2fx)", ($9 > 0 ? ">= " : ""), $4, ideal ? $4 / ideal : 0) }
    END {
      printf "| scenario |"; for (j = 1; j <= nl; j++) printf " %s |", ly[j]; printf "\n|---|"
      for (j = 1; j <= nl; j++) printf "---:|"; printf "\n"
      for (i = 1; i <= ns; i++) { printf "| %s |", sc[i]; for (j = 1; j <= nl; j++) printf " %s |", cell[sc[i], ly[j]]; printf "\n" }
    }' "$DATA/stats.tsv" | sed -e 's/| static |/| two static copies |/' -e 's/| shared |/| shared-library fix |/' \
      -e 's/| preload |/| LD_PRELOAD poolshim |/' -e 's/| linked |/| linked to libpoolshim.so |/'
}

cells() {
  echo "| scenario | layout | pools | threads | median ms | min ms | max ms | max/median | median/ideal | runs completed |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  while IFS=$'\t' read -r layout scenario ok med lo hi pools threads timeouts failures; do
    awk -v s="$scenario" -v l="$(layout_name "$layout")" -v ok="$ok" -v med="$med" -v lo="$lo" \
        -v hi="$hi" -v p="$pools" -v t="$threads" -v to="$timeouts" -v bad="$failures" \
        -v ideal="$IDEAL" -v runs="$RUNS" 'BEGIN {
      note = (to > 0 ? sprintf(" (%d timed out: lower bound)", to) : "") (bad > 0 ? sprintf(" (%d failed)", bad) : "")
      # completed / attempted: a cell that timed out is not attempted again
      if (med == "NA") { printf "| %s | %s | %s | %s | - | - | - | - | - | %d/%d%s |\n", s, l, p, t, ok - to, ok + bad, note; exit }
      printf "| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.2f | %.2fx | %d/%d%s |\n", s, l, p, t, med, lo, hi,
        hi / med, ideal ? med / ideal : 0, ok - to, ok + bad, note }'
  done <"$DATA/stats.tsv"
}

startup_table() {
  echo "| command | wall without (ms) | wall with LD_PRELOAD (ms) | wall added (ms) | CPU without (ms) | CPU with (ms) | CPU added (ms) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' '{ printf "| `%s` | %.3f | %.3f | %+.3f | %.3f | %.3f | %+.3f |\n", ($1 == "true" ? "/bin/true" : $1 " -c pass"),
    $2, $3, $3 - $2, $4, $5, $5 - $4 }' "$DATA/startup.tsv"
}

idle_table() {
  echo "| host (never asks for a pool) | VmRSS without (KiB) | with LD_PRELOAD (KiB) | added KiB | threads without | threads with |"
  echo "|---|---:|---:|---:|---:|---:|"
  awk -F'\t' '{ r[$1, $2] = $3; t[$1, $2] = $4; if (!($1 in seen)) { seen[$1] = 1; h[++n] = $1 } }
    END { for (i = 1; i <= n; i++) { k = h[i]
      name = (k == "sh") ? "/bin/sh (C)" : (k == "idle_host") ? "idle_host (C++)" : k
      printf "| %s | %d | %d | %+d | %d | %d |\n", name, r[k, 0], r[k, 1], r[k, 1] - r[k, 0], t[k, 0], t[k, 1] } }' \
    "$DATA/idle.tsv"
}

fork_table() {
  echo "| \`fork_cost_host\` (never asks for a pool) | without | with LD_PRELOAD | added |"
  echo "|---|---:|---:|---:|"
  awk -F'\t' '{ f[$1] = $2; t[$1] = $3 } END {
    printf "| minor page faults per child | %.1f | %.1f | %+.1f |\n", f[0], f[1], f[1] - f[0]
    printf "| microseconds per fork | %.1f | %.1f | %+.1f |\n", t[0], t[1], t[1] - t[0] }' \
    "$DATA/fork.tsv"
}

# Micro-benchmark medians in ns: "program benchmark ns".
micro_ns() {
  awk -F'\t' '{ f = ($4 == "us") ? 1e3 : ($4 == "ms") ? 1e6 : ($4 == "s") ? 1e9 : 1; printf "%s\t%s\t%.2f\n", $1, $2, $3 * f }' \
    "$DATA/micro.tsv"
}

# Pairs each "shim" dispatch benchmark (run/*, parallelize*) with its "raw" twin (same name,
# shim -> raw): "program name shim raw ratio". get_threadpool has no target; it is listed apart.
dispatch_pairs() {
  micro_ns | awk -F'\t' '{ v[$1, $2] = $3; if ($2 ~ /^(run|parallelize)/ && $2 ~ /shim/) { s[++n] = $1 SUBSEP $2 } }
    END { for (i = 1; i <= n; i++) { split(s[i], p, SUBSEP); r = p[2]; sub(/shim/, "raw", r)
      if ((p[1], r) in v && v[p[1], r] > 0) printf "%s\t%s\t%.2f\t%.2f\t%.3f\n", p[1], p[2], v[s[i]], v[p[1], r], v[s[i]] / v[p[1], r] } }'
}

micro_table() {
  echo "| program | benchmark | median |"
  echo "|---|---|---:|"
  micro_ns | sort -t$'\t' -k1,1 -k2,2 | awk -F'\t' '{ printf "| %s | `%s` | %s |\n", $1, $2, ($3 >= 1e6) ? sprintf("%.2f ms", $3 / 1e6) : ($3 >= 1e3) ? sprintf("%.2f us", $3 / 1e3) : sprintf("%.1f ns", $3) }'
}

# ------------------------------------------------------------------------------- targets
# 1. Scenarios under the shim vs the ideal; 2. outliers within shim cells.
read -r WORST_CELL WORST_RATIO < <(awk -F'\t' -v ideal="$IDEAL" '
  ($1 == "preload" || $1 == "linked") { r = ($4 == "NA" || !ideal) ? 999 : $4 / ideal
    if (r > w) { w = r; c = $1 "/" $2 } } END { printf "%s %.3f\n", c, w }' "$DATA/stats.tsv")
read -r OUT_CELL OUT_RATIO < <(awk -F'\t' '
  ($1 == "preload" || $1 == "linked") { r = ($4 == "NA" || $4 == 0) ? 999 : $6 / $4
    if (r > w) { w = r; c = $1 "/" $2 } } END { printf "%s %.3f\n", c, w }' "$DATA/stats.tsv")
SCEN_LIST=$(awk -F'\t' -v ideal="$IDEAL" '($1 == "preload" || $1 == "linked") && $4 != "NA" && ideal {
  printf "%s%s/%s %.2fx", (n++ ? ", " : ""), $1, $2, $4 / ideal }' "$DATA/stats.tsv")
# 3. Dispatch: the worst shim/raw ratio over every pair.
PAIRS=$(dispatch_pairs)
read -r DISP_NAME DISP_RATIO < <(awk -F'\t' '$5 > w { w = $5; c = $2 } END { printf "%s %.3f\n", (c ? c : "none"), w }' <<<"$PAIRS")
DISP_LIST=$(awk -F'\t' '{ printf "%s`%s` %.2fx", (n++ ? ", " : ""), $2, $5 }' <<<"$PAIRS")
# 4. Start-up; 5. idle cost.
# Judged on the added CPU time (user + system): process start-up is single-threaded CPU work, and
# CPU time is far less disturbed than wall time by other load on the machine. Wall is shown too.
read -r STARTUP_WORST < <(awk -F'\t' '{ d = $5 - $4; if (n++ == 0 || d > w) w = d } END { printf "%.3f\n", n ? w : 999 }' "$DATA/startup.tsv")
STARTUP_LIST=$(awk -F'\t' '{ printf "%s%s CPU %+.3f ms (wall %+.3f ms)", (n++ ? ", " : ""), ($1 == "true" ? "/bin/true" : $1), $5 - $4, $3 - $2 }' "$DATA/startup.tsv")
read -r IDLE_RSS IDLE_THREADS < <(awk -F'\t' '{ r[$1, $2] = $3; t[$1, $2] = $4; h[$1] = 1 }
  END { for (k in h) { d = r[k, 1] - r[k, 0]; e = t[k, 1] - t[k, 0]; if (d > wr) wr = d; if (e > wt) wt = e }
        printf "%d %d\n", wr, wt }' "$DATA/idle.tsv")
IDLE_LIST=$(awk -F'\t' '{ r[$1, $2] = $3; t[$1, $2] = $4; if (!($1 in s)) { s[$1] = 1; h[++n] = $1 } }
  END { for (i = 1; i <= n; i++) { k = h[i]; printf "%s%s %+d KiB, %+d threads", (i > 1 ? "; " : ""), k, r[k, 1] - r[k, 0], t[k, 1] - t[k, 0] } }' "$DATA/idle.tsv")
IDLE_OK=$(awk -v r="$IDLE_RSS" -v t="$IDLE_THREADS" -v lim="$T_RSS_KIB" 'BEGIN { print (r < lim && t <= 0) ? "met" : "**MISSED**" }')

# 6. pthreadpool shapes: "shape metric raw_ns shim_ns shim/raw shim_max/median raw_max/median",
# medians over every repetition of both passes of a side.
SHAPES=""
if [ -s "$DATA/shapes.tsv" ]; then
  SHAPES=$(awk -F'\t' '
    function sortn(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t } }
    { k = $1 SUBSEP $3 SUBSEP $4; v[k, ++n[k]] = $6
      if ($3 != "floor" && $3 != "pool_threads" && !(($3, $4) in seen)) { seen[$3, $4] = 1; order[++m] = $3 SUBSEP $4 } }
    function stat(side, shape, metric,   k, i, a, c) {
      k = side SUBSEP shape SUBSEP metric; c = n[k] + 0; if (!c) { med = ""; worst = ""; return }
      for (i = 1; i <= c; i++) a[i] = v[k, i]; sortn(a, c)
      med = c % 2 ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2; worst = a[c] }
    END {
      for (i = 1; i <= m; i++) { split(order[i], p, SUBSEP)
        stat("raw", p[1], p[2]); rm = med; rw = worst; stat("shim", p[1], p[2]); sm = med; sw = worst
        if (rm == "" || sm == "" || rm <= 0 || sm <= 0) continue
        printf "%s\t%s\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\n", p[1], p[2], rm, sm, sm / rm, sw / sm, rw / rm }
      stat("spin", "floor", "call2"); if (med != "") printf "floor\tspin\t%.2f\n", med
      stat("omp", "floor", "call2"); if (med != "") printf "floor\tomp\t%.2f\n", med
    }' "$DATA/shapes.tsv")
fi
SHAPE_PAIRS=$(awk -F'\t' '$1 != "floor"' <<<"$SHAPES")
if [ -n "$SHAPE_PAIRS" ]; then
  read -r SHAPE_WORST_NAME SHAPE_WORST SHAPE_MET SHAPE_N < <(awk -F'\t' -v lim="$T_SHAPE" '
    { if ($5 > w) { w = $5; c = $1 "/" $2 } if ($5 <= lim) met++; n++ } END { printf "%s %.3f %d %d\n", c, w, met, n }' <<<"$SHAPE_PAIRS")
  read -r SHAPE_OUT_NAME SHAPE_OUT < <(awk -F'\t' '{ if ($6 > w) { w = $6; c = $1 "/" $2 } } END { printf "%s %.3f\n", c, w }' <<<"$SHAPE_PAIRS")
  MOON_SHIM=$(awk -F'\t' '$1 == "1d" && $2 == "call2" { print $4 }' <<<"$SHAPES")
  MOON_RAW=$(awk -F'\t' '$1 == "1d" && $2 == "call2" { print $3 }' <<<"$SHAPES")
  MOON_SPIN=$(awk -F'\t' '$1 == "floor" && $2 == "spin" { print $3 }' <<<"$SHAPES")
  MOON_OMP=$(awk -F'\t' '$1 == "floor" && $2 == "omp" { print $3 }' <<<"$SHAPES")
  # The floor of the pool's own two threads (ptp_shapes_bench's "pool_threads floor", measured in
  # the same process just before each repetition): the 1d 2-task call over the floor of the same
  # repetition, median over every repetition of a side. "side floor_ns call2_ns ratio".
  own_floor() {
    awk -F'\t' -v side="$1" '
      function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j+1] = a[j]; a[j+1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      $1 == side && $3 == "pool_threads" { f[$2, $5] = $6 }
      $1 == side && $3 == "1d" && $4 == "call2" { c[$2, $5] = $6 }
      END { for (k in c) if ((k in f) && f[k] > 0) { r[++n] = c[k] / f[k]; fl[n] = f[k]; ca[n] = c[k] }
            if (n) printf "%.1f %.1f %.2f\n", med(fl, n), med(ca, n), med(r, n) }' "$DATA/shapes.tsv"
  }
  read -r OWN_SHIM_FLOOR OWN_SHIM_CALL OWN_SHIM_RATIO < <(own_floor shim)
  read -r OWN_RAW_FLOOR OWN_RAW_CALL OWN_RAW_RATIO < <(own_floor raw)
fi
# Concurrent callers (2 and 4) under the shim against the ideal: named apart from the list above.
CONC_LIST=$(awk -F'\t' -v ideal="$IDEAL" '($1 == "preload" || $1 == "linked") && ($2 == "concurrent" || $2 == "concurrent4") && $4 != "NA" && ideal {
  printf "%s%s/%s %.2fx", (n++ ? ", " : ""), $1, $2, $4 / ideal }' "$DATA/stats.tsv")
CONC_WORST=$(awk -F'\t' -v ideal="$IDEAL" '($1 == "preload" || $1 == "linked") && ($2 == "concurrent" || $2 == "concurrent4") {
  r = ($4 == "NA" || !ideal) ? 999 : $4 / ideal; if (r > w) w = r } END { printf "%.3f\n", w + 0 }' "$DATA/stats.tsv")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b > 0) printf "%.2f", a / b }'; }

# Issue 34, point 1: per item against raw on every shape, and the per-call cells (2 and 64 tasks)
# within T_SHAPE of raw as before. "worst_name worst met n".
if [ -n "$SHAPE_PAIRS" ]; then
  read -r ITEM_WORST_NAME ITEM_WORST ITEM_MET ITEM_N < <(awk -F'\t' -v lim="$T_ITEM" '$2 == "item" {
    if ($5 > w) { w = $5; c = $1 } if ($5 <= lim) met++; n++ } END { printf "%s %.3f %d %d\n", c, w, met, n }' <<<"$SHAPE_PAIRS")
  read -r CALL_WORST_NAME CALL_WORST CALL_MET CALL_N < <(awk -F'\t' -v lim="$T_SHAPE" '$2 != "item" {
    if ($5 > w) { w = $5; c = $1 "/" $2 } if ($5 <= lim) met++; n++ } END { printf "%s %.3f %d %d\n", c, w, met, n }' <<<"$SHAPE_PAIRS")
fi
# EPCC constructs of FILE, variant NATIVE against BASE: "construct base_us native_us ratio
# worst_round_ratio" a construct (ratio "-" when the base is under T_EPCC_RES), rounds paired in
# the order of their lines.
epcc_rows() {
  awk -v base="$2" -v nat="$3" -v res="$T_EPCC_RES" '
    function med(a, n,   i, j, t, b) { for (i = 1; i <= n; i++) b[i] = a[i]
      for (i = 2; i <= n; i++) { t = b[i]; for (j = i - 1; j >= 1 && b[j] > t; j--) b[j+1] = b[j]; b[j+1] = t }
      return n % 2 ? b[(n + 1) / 2] : (b[n / 2] + b[n / 2 + 1]) / 2 }
    $2 == "threads" { next }
    $1 == base { if (!($2 in nb)) order[++m] = $2; bv[$2, ++nb[$2]] = $3 }
    $1 == nat { nv[$2, ++nn[$2]] = $3 }
    END { for (i = 1; i <= m; i++) { c = order[i]; if (!nn[c]) continue
        delete a; for (k = 1; k <= nb[c]; k++) a[k] = bv[c, k]; mb = med(a, nb[c])
        delete a; for (k = 1; k <= nn[c]; k++) a[k] = nv[c, k]; mn = med(a, nn[c])
        if (mb < res) { printf "%s %.3f %.3f - -\n", c, mb, mn; continue }
        w = 0; for (k = 1; k <= nb[c] && k <= nn[c]; k++) if (bv[c, k] > 0 && nv[c, k] / bv[c, k] > w) w = nv[c, k] / bv[c, k]
        printf "%s %.3f %.3f %.2f %.2f\n", c, mb, mn, mn / mb, w } }' "$1"
}
# A target row from epcc_rows' lines: "verdict|worst|worst_round|met|judged|list|unjudged".
epcc_summary() {
  awk -v lim="$T_EPCC" -v rlim="$T_EPCC_ROUND" '
    $4 == "-" { u = u (u ? ", " : "") sprintf("%s %s against %s us", $1, $3, $2); next }
    { n++; if ($4 <= lim) met++; if ($4 > w) { w = $4; wc = $1 } if ($5 > wr) { wr = $5; wrc = $1 }
      l = l (l ? ", " : "") sprintf("%s %.2fx", $1, $4) }
    END { printf "%s|%s %.2fx|%s %.2fx|%d|%d|%s|%s\n", (n && met == n ? "met" : "**MISSED**"), wc, w,
            wrc, wr, met, n, l, (u ? u : "none") }'
}
# The host's mode in the OpenMP benches' rounds (bench/host_mode.sh), one line, or nothing.
source "$ROOT/bench/host_mode.sh"
host_modes() {
  local f line=""
  for f in openmp kmpc; do
    [ -s "$DATA/${f}_floor.txt" ] || continue
    line="$line${line:+; }bench/${f}_bench.sh $(host_mode_list "$DATA/${f}_floor.txt") ns"
  done
  [ -n "$line" ] || return 0
  echo "The host's mode, round by round (a spin-only 2-thread call, bench/host_mode.sh): $line."
  echo "A ratio compares like with like only within one mode (docs/openmp.md, \"The host's mode, and rounds that compare like with like\")."
  echo
}
EPCC_ROWS="" KMPC_ROWS=""
[ -s "$DATA/openmp_epcc.txt" ] && EPCC_ROWS=$(epcc_rows "$DATA/openmp_epcc.txt" libgomp shim-native)
[ -s "$DATA/kmpc_epcc.txt" ] && KMPC_ROWS=$(epcc_rows "$DATA/kmpc_epcc.txt" libomp shim-native)
# The small-op alternating loop: the median ratio of each variant's runs.
alt_median() {
  [ -s "$DATA/torch_alternating.txt" ] || return 0
  awk -F'\t' -v v="$1" '$1 == v && $2 != "" { print $2 }' "$DATA/torch_alternating.txt" | sort -g |
    awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'
}
ALT_NATIVE=$(alt_median "2 threads, shim native")
ALT_FLOOR=$(alt_median "1 thread, no shim")

# ------------------------------------------------------------------------------- chart
# chart.dat: scenario, then median min max for each layout in LAYOUT order.
LAYOUT_ORDER=(static shared preload linked)
awk -F'\t' -v order="${LAYOUT_ORDER[*]}" '
  BEGIN { nl = split(order, ly, " ") }
  { if (!($2 in s)) { s[$2] = 1; sc[++ns] = $2 } m[$2, $1] = ($4 == "NA") ? "NaN" : $4; lo[$2, $1] = ($5 == "NA") ? "NaN" : $5; hi[$2, $1] = ($6 == "NA") ? "NaN" : $6 }
  END { for (i = 1; i <= ns; i++) { printf "%s", sc[i]; for (j = 1; j <= nl; j++) printf " %s %s %s", m[sc[i], ly[j]], lo[sc[i], ly[j]], hi[sc[i], ly[j]]; printf "\n" } }' \
  "$DATA/stats.tsv" >"$DATA/chart.dat"
gnuplot <<EOF
set terminal pngcairo size 1200,680 font "Sans,12" noenhanced
set output "$PNG"
set title "poolshim: wall time of $CALLS parallel_for calls ($ITEMS items x ${SPIN_NS} ns) on $CPUS CPUs (load average ${LOAD_BEFORE%% *} before)\nmedian of $RUNS runs, bars = min..max, log scale; dashed = ideal (one module, one pool); runs stopped at ${TIMEOUT} s are lower bounds"
set style data histogram
set style histogram errorbars gap 1.5 lw 1.5
set style fill solid 0.85 border -1
set logscale y
set format y "%g"
set ylabel "wall time (ms)"
set grid ytics mytics
set key outside top center horizontal
set xtics nomirror
set bmargin 4.5
$( [ -n "$IDEAL" ] && echo "set arrow from graph 0, first $IDEAL to graph 1, first $IDEAL nohead dt 2 lw 2 lc rgb 'black' front"
   [ -n "$IDEAL" ] && echo "set label 'ideal $(printf '%.0f' "$IDEAL") ms' at graph 0.005, first $IDEAL offset 0,0.7 front" )
label(s) = s eq "ideal" ? "ideal\n(1 module, 1 pool)" : \
  s eq "alternating" ? "alternating\n(1 caller, 2 modules)" : \
  s eq "concurrent" ? "concurrent\n(2 callers, 2 modules)" : \
  s eq "concurrent4" ? "concurrent4\n(4 callers, 4 modules)" : \
  s eq "oversized" ? "oversized\n(pools 4x CPUs, alternating)" : s
plot "$DATA/chart.dat" using 2:3:4:xtic(label(strcol(1))) title "two static copies" lc rgb "#d62728", \
     '' using 5:6:7 title "shared-library fix" lc rgb "#ff7f0e", \
     '' using 8:9:10 title "LD_PRELOAD poolshim" lc rgb "#2ca02c", \
     '' using 11:12:13 title "linked to libpoolshim.so" lc rgb "#1f77b4"
EOF

# ------------------------------------------------------------------------------- markdown
CPU_MODEL=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
# The results this run writes (OUT) are not a change of the measured tree.
git -C "$ROOT" diff --quiet HEAD -- . ":(exclude)$(realpath --relative-to="$ROOT" "$OUT")" 2>/dev/null ||
  COMMIT="$COMMIT (with uncommitted changes)"
{
  echo "# poolshim benchmark results"
  echo
  echo "Written by \`scripts/bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $COMMIT."
  echo "Explanation of every scenario and layout, and how to reproduce: [docs/bench.md](../../docs/bench.md)."
  echo
  echo "**Machine:** ${CPU_MODEL:-unknown CPU}; \`nproc\` = $CPUS; kernel $(uname -r);" \
       "load average $LOAD_BEFORE before, $LOAD_AFTER after ($ELAPSED s of measurement)."
  echo
  echo "**Workload:** each process run does $CALLS \`parallel_for\` calls of $ITEMS items of ~$SPIN_NS ns" \
       "busy-spin through the legacy ExecuTorch-style fixture modules (dlopen'ed RTLD_NOW|RTLD_LOCAL);" \
       "legacy pools sized to the $CPUS allowed CPUs ($((4 * CPUS)) for *oversized*). $RUNS runs per cell," \
       "interleaved round-robin in a shuffled order; a run stopped after $TIMEOUT s counts as $TIMEOUT s" \
       "(a lower bound) and its cell is not run again." \
       "The ideal is *ideal* in *two static copies*: one module, one right-sized pool, no shim" \
       "(${IDEAL:-?} ms median)."
  echo
  echo "![wall time per scenario and layout](latest.png)"
  echo
  echo "## Targets (issues 5 and 8; reported, never asserted)"
  echo
  echo "| target | result | number |"
  echo "|---|---|---|"
  echo "| every scenario under the shim within ${T_SCENARIO}x of the ideal median | $(verdict "$WORST_RATIO" $T_SCENARIO) | worst $WORST_CELL ${WORST_RATIO}x; $SCEN_LIST |"
  echo "| no run slower than ${T_OUTLIER}x its median (shim layouts) | $(verdict "$OUT_RATIO" $T_OUTLIER) | worst max/median $OUT_CELL ${OUT_RATIO}x |"
  if [ -n "$PAIRS" ]; then
    echo "| dispatch within ${T_DISPATCH}x of raw pthreadpool (median, shim/raw) | $(verdict "$DISP_RATIO" $T_DISPATCH) | worst \`$DISP_NAME\` ${DISP_RATIO}x; $DISP_LIST |"
  else
    echo "| dispatch within ${T_DISPATCH}x of raw pthreadpool | not measured | micro-benchmarks not built |"
  fi
  if [ -s "$DATA/startup.tsv" ]; then
    echo "| start-up under ${T_STARTUP_MS} ms added (CPU time) | $(verdict "$STARTUP_WORST" $T_STARTUP_MS) | $STARTUP_LIST |"
  else
    echo "| start-up under ${T_STARTUP_MS} ms added | not measured | hyperfine missing |"
  fi
  echo "| no thread and under ${T_RSS_KIB} KiB RSS added while unused | $IDLE_OK | $IDLE_LIST |"
  if [ -n "$CONC_LIST" ]; then
    echo "| concurrent callers (2 and 4) under the shim within ${T_SCENARIO}x of the ideal | $(verdict "$CONC_WORST" $T_SCENARIO) | $CONC_LIST |"
  fi
  if [ -n "$SHAPE_PAIRS" ]; then
    echo "| every pthreadpool shape, per call (2 and 64 tasks) and per item, within ${T_SHAPE}x of raw Debian pthreadpool (C client, LD_PRELOAD, 2 threads) | $(verdict "$SHAPE_WORST" $T_SHAPE) | $SHAPE_MET of $SHAPE_N pairs met; worst \`$SHAPE_WORST_NAME\` ${SHAPE_WORST}x (table below) |"
    echo "| pthreadpool shapes: worst repetition within ${T_SHAPE_OUTLIER}x its median (shim) | $(verdict "$SHAPE_OUT" $T_SHAPE_OUTLIER) | worst \`$SHAPE_OUT_NAME\` ${SHAPE_OUT}x |"
    m_floor=$(ratio "$MOON_SHIM" "$MOON_SPIN"); m_raw=$(ratio "$MOON_SHIM" "$MOON_RAW"); m_omp=$(ratio "$MOON_SHIM" "$MOON_OMP")
    if [ -n "$OWN_SHIM_RATIO" ]; then
      echo "| moonshot: 2-task empty call within ${T_MOON_FLOOR}x of the spin-only floor of the pool's own two threads (same process, same repetition) | $(verdict "$OWN_SHIM_RATIO" $T_MOON_FLOOR) | shim ${OWN_SHIM_RATIO}x (median of per-repetition ratios; call $(printf '%.0f' "$OWN_SHIM_CALL") ns, floor $(printf '%.0f' "$OWN_SHIM_FLOOR") ns), raw Debian ${OWN_RAW_RATIO:-?}x |"
    fi
    echo "| moonshot: 2-task empty call within ${T_MOON_FLOOR}x of a spin-only floor (a process of its own) | $(verdict "$m_floor" $T_MOON_FLOOR) | shim $(printf '%.0f' "${MOON_SHIM:-0}") ns, floor $(printf '%.0f' "${MOON_SPIN:-0}") ns: ${m_floor:-?}x |"
    echo "| moonshot: 2-task empty call faster than Debian pthreadpool and libgomp | $( [ -n "$m_raw" ] && [ -n "$m_omp" ] && awk -v a="$m_raw" -v b="$m_omp" 'BEGIN { exit !(a < 1 && b < 1) }' && echo met || echo "**MISSED**") | shim/raw ${m_raw:-?}x (raw $(printf '%.0f' "${MOON_RAW:-0}") ns), shim/libgomp ${m_omp:-?}x (libgomp $(printf '%.0f' "${MOON_OMP:-0}") ns) |"
  else
    echo "| pthreadpool shapes within ${T_SHAPE}x of raw Debian pthreadpool | not measured | ptp_shapes_bench not built |"
  fi
  echo
  echo "## Targets (issues 34 and 35; reported, never asserted)"
  echo
  echo "| target | result | number |"
  echo "|---|---|---|"
  if [ -n "$SHAPE_PAIRS" ]; then
    echo "| per item within ${T_ITEM}x of raw Debian pthreadpool on every shape | $(verdict "$ITEM_WORST" $T_ITEM) | $ITEM_MET of $ITEM_N shapes met; worst \`$ITEM_WORST_NAME\` ${ITEM_WORST}x (table below; docs/bench.md argues the floor of two threads) |"
    echo "| per call (2 and 64 tasks) within ${T_SHAPE}x of raw on every shape | $(verdict "$CALL_WORST" $T_SHAPE) | $CALL_MET of $CALL_N cells met; worst \`$CALL_WORST_NAME\` ${CALL_WORST}x |"
  fi
  if [ -n "$EPCC_ROWS" ]; then
    IFS='|' read -r e_ok e_worst e_round e_met e_n e_list e_under <<<"$(epcc_summary <<<"$EPCC_ROWS")"
    echo "| every EPCC construct (gcc build) within ${T_EPCC}x of libgomp, median of rounds | $e_ok | $e_met of $e_n met; worst $e_worst; $e_list. Below ${T_EPCC_RES} us on libgomp, not judged: $e_under |"
    echo "| every EPCC construct within ${T_EPCC_ROUND}x of libgomp in each round | $(verdict "${e_round##* }" "$T_EPCC_ROUND") | worst $e_round |"
  else
    echo "| every EPCC construct within ${T_EPCC}x of libgomp | not measured | bench/openmp_bench.sh did not run |"
  fi
  if [ -n "$ALT_NATIVE" ]; then
    echo "| small PyTorch ops alternating within ${T_ALTERNATING}x of their parts (2 threads, native OpenMP) | $(verdict "$ALT_NATIVE" $T_ALTERNATING) | ${ALT_NATIVE}x (median of rounds); one thread without the shim (the caches' floor) ${ALT_FLOOR:-?}x |"
  else
    echo "| small PyTorch ops alternating within ${T_ALTERNATING}x of their parts | not measured | no python3-torch |"
  fi
  echo "| idle RSS under ${T_RSS_KIB} KiB | $IDLE_OK | $IDLE_LIST |"
  if [ -n "$KMPC_ROWS" ]; then
    IFS='|' read -r k_ok k_worst k_round k_met k_n k_list k_under <<<"$(epcc_summary <<<"$KMPC_ROWS")"
    echo "| issue 35: every EPCC construct of the clang build (\`POOLSHIM_KMPC=shim\`) within ${T_EPCC}x of libomp | $k_ok | $k_met of $k_n met; worst $k_worst; $k_list. Below ${T_EPCC_RES} us on libomp, not judged: $k_under |"
  else
    echo "| issue 35: every EPCC construct of the clang build within ${T_EPCC}x of libomp | not measured | no clang-14 |"
  fi
  echo
  host_modes
  echo "## Wall time per scenario and layout"
  echo
  echo "Median ms of $RUNS runs, and the ratio to the ideal median."
  echo
  matrix
  echo
  echo "## Every cell"
  echo
  echo "*pools*: distinct ThreadPool objects the modules got from \`get_threadpool()\`;" \
       "*threads*: the process's threads at the end (\`/proc/self/task\`)."
  echo
  cells
  echo
  echo "## Start-up cost"
  echo
  echo "hyperfine, no shell; 3 rounds in alternating order; wall: median of the per-round medians;" \
       "CPU: user + system time, median of the per-round means. The target is judged on CPU time," \
       "which other load on the machine disturbs far less than wall time."
  echo
  [ -s "$DATA/startup.tsv" ] && startup_table || echo "(not measured: hyperfine missing)"
  echo
  echo "## Cost while unused"
  echo
  echo "Each host reads its own VmRSS and thread count from \`/proc/self/status\` and never asks" \
       "for a pool; median of 7 runs each."
  echo
  idle_table
  echo
  echo "A host that forks runs the shim's fork handlers in every child. \`fork_cost_host\` forks 400" \
       "children that exit at once, 5 rounds alternating with and without the preload; medians of" \
       "the rounds (no target: docs/bench.md, \"A fork's child\")."
  echo
  if [ -s "$DATA/fork.tsv" ]; then fork_table; else echo "(not measured)"; fi
  echo
  echo "## Micro-benchmarks"
  echo
  echo "Google Benchmark, medians of real time over $(( (MICRO_REPS + 1) / 2 * 2 )) repetitions per" \
       "benchmark: each side in processes of its own, in ABBA order (raw, shim, shim, raw)," \
       "repetitions interleaved at random inside a process. \`raw\`: the legacy fixture module's own" \
       "code (ExecuTorch benches) or Debian's libpthreadpool (pthreadpool bench); \`shim\`:" \
       "libpoolshim.so's exported symbol; both dlopen'ed RTLD_LOCAL, pools of the same size" \
       "($CPUS threads). \`run/*\`: one \`ThreadPool::run\` over $CPUS items (one per thread)."
  echo
  if [ -s "$DATA/micro.tsv" ]; then micro_table; else echo "(not measured)"; fi
  if [ -n "$PAIRS" ]; then
    echo
    echo "Dispatch, shim against raw (the target pairs):"
    echo
    echo "| benchmark | shim | raw | shim/raw |"
    echo "|---|---:|---:|---:|"
    awk -F'\t' '{ printf "| `%s` | %.2f us | %.2f us | %.2fx |\n", $2, $3 / 1e3, $4 / 1e3, $5 }' <<<"$PAIRS"
  fi
  if [ -n "$SHAPE_PAIRS" ]; then
    echo
    echo "## pthreadpool shapes"
    echo
    echo "\`bench/ptp_shapes_bench.c\`: a C client linked to Debian's libpthreadpool (DT_NEEDED)," \
         "every parallelize shape of Debian's header with an empty task, on a pool of 2 threads; *raw*" \
         "as-is, *shim* under \`LD_PRELOAD=libpoolshim.so\` (\`POOLSHIM_NUM_THREADS=2\`). *call2* /" \
         "*call64*: ns per call of a 2-task / 64-task call; *item*: ns per task of a 4096-task call;" \
         "tasks spread evenly over the dimensions, tiled dimensions with tile 2. Medians of" \
         "$((2 * SHAPE_REPS)) repetitions per side (ABBA passes, each a process of its own)." \
         "Floor of the pool's own two threads (the same spin-only protocol played by the two items of" \
         "one call, before every repetition): shim $(printf '%.0f' "${OWN_SHIM_FLOOR:-0}") ns, raw" \
         "$(printf '%.0f' "${OWN_RAW_FLOOR:-0}") ns (medians; a process's floor is 30, 80 or 450 ns" \
         "depending on where its two threads landed)." \
         "Floors of the 2-task call in processes of their own (\`bench/dispatch_floor_bench.c\`): spin-only 2-thread dispatch" \
         "$(printf '%.0f' "${MOON_SPIN:-0}") ns, libgomp \`omp parallel for\` $(printf '%.0f' "${MOON_OMP:-0}") ns."
    echo
    echo "| shape | metric | raw ns | shim ns | shim/raw | worst/median (shim) | target ${T_SHAPE}x |"
    echo "|---|---|---:|---:|---:|---:|---|"
    awk -F'\t' -v lim="$T_SHAPE" '{ printf "| `%s` | %s | %.1f | %.1f | %.2fx | %.2f | %s |\n", $1, $2, $3, $4, $5, $6, ($5 <= lim ? "met" : "**MISSED**") }' <<<"$SHAPE_PAIRS"
  fi
} >"$MD"
