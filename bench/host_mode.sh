# Sourced by bench/openmp_bench.sh and bench/kmpc_bench.sh: the host's mode, once per round.
#
# Why: a region's cost is a few hand-offs of a line between the two CPUs, and on the shared VMs
# this project is measured on, those hand-offs slow down for minutes at a time: a region then
# costs 1.2-1.8 us instead of 0.4-0.5 (docs/openmp.md,
# "The host's mode, and rounds that compare like with like"). A ratio of two runtimes read in
# different modes says nothing about either, so each round records the spin-only 2-thread call
# of bench/dispatch_floor_bench.c (a floor no runtime goes under) and the report prints the
# rounds' floors beside the table: a reader sees which mode each figure was read in.
#
#   host_mode_build DIR        compiles the probe into DIR/floor (returns non-zero if it cannot)
#   host_mode_probe DIR ROUND  appends "ROUND ns" (median of 5 repetitions) to DIR/floor.txt
#   host_mode_list FILE        a floor.txt's figures as "a, b, c" (bench/report.sh reads them too)
#   host_mode_line DIR         the line a bench's report prints (or nothing)

host_mode_build() {
  local here
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  gcc -O2 -fopenmp -pthread -I"$here" "$here/dispatch_floor_bench.c" -o "$1/floor" 2>/dev/null
}

host_mode_probe() {
  [ -x "$1/floor" ] || return 0
  env -u LD_PRELOAD "$1/floor" spin --reps 5 --ms 4 2>/dev/null | awk '{print $4}' | sort -g |
    awk -v r="$2" '{a[NR] = $1} END {if (NR) printf "%s %.0f\n", r, a[int((NR + 1) / 2)]}' \
      >> "$1/floor.txt" || true  # a failed probe leaves its round out, never the bench
}

host_mode_list() {
  awk '{printf "%s%s", (NR > 1 ? ", " : ""), $2}' "$1"
}

host_mode_line() {
  [ -s "$1/floor.txt" ] || return 0
  echo "The host's mode (bench/host_mode.sh): a spin-only 2-thread call costs, round by round," \
    "$(host_mode_list "$1/floor.txt") ns."
}
