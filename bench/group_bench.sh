#!/usr/bin/env bash
# The group scenario of the bench (issue 11 point 3; docs/bench.md, "Four processes, one budget"):
# 4 legacy hosts (tests/fixtures/host, the legacy ExecuTorch workload under LD_PRELOAD) at once,
# without and with POOLSHIM_GROUP, against 4 x the wall time of one host alone (the ideal on a
# machine that runs the four one after the other at full speed). While the four run, the threads
# of the four processes in state R are sampled from /proc/PID/task/*/stat. Runs interleave
# (ideal, without, with) and the medians are reported, with the load average.
#
# usage: bench/group_bench.sh [--runs N] [--calls N] [--items N] [--spin-ns N] [--timeout S]
#                             [--no-build] [--build-dir DIR] [--out DIR]
# Writes DIR/group.md (default bench/results/group.md) and prints it. Called by scripts/bench.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS=5 CALLS=400 ITEMS=64 SPIN_NS=2500 TIMEOUT=60 BUILD=1
BUILD_DIR=build-release OUT_DIR=bench/results
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --items) ITEMS=$2; shift 2 ;;
    --spin-ns) SPIN_NS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --out) OUT_DIR=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "group_bench.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
for n in "$RUNS" "$CALLS" "$ITEMS" "$SPIN_NS" "$TIMEOUT"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "group_bench.sh: '$n' is not a whole number" >&2; exit 2; }
done
BUILD_DIR=$(realpath -m "$BUILD_DIR")
OUT_DIR=$(realpath -m "$OUT_DIR")
if [ "$BUILD" = 1 ]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DPOOLSHIM_BUILD_TESTS=ON >/dev/null
  cmake --build "$BUILD_DIR" -j2 --target poolshim legacy_host module_a >/dev/null
fi
mkdir -p "$OUT_DIR"

python3 - "$BUILD_DIR" "$OUT_DIR/group.md" "$RUNS" "$CALLS" "$ITEMS" "$SPIN_NS" "$TIMEOUT" <<'EOF'
import glob, os, statistics, subprocess, sys, time

build, out_md, runs, calls, items, spin_ns, timeout = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
host, lib = os.path.join(build, "bin", "legacy_host"), os.path.join(build, "lib")
# --time: the host skips the tests' worker report (its top-up loops would be measured too).
cmd = [host, "--scenario", "alternating", "--calls", str(calls), "--items", str(items),
       "--spin-ns", str(spin_ns), "--time", os.path.join(lib, "module_a.so")]
base_env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD" and not k.startswith("POOLSHIM_")}
base_env["LD_PRELOAD"] = os.path.join(lib, "libpoolshim.so")


def threads_in_r(pids):
    n = 0
    for pid in pids:
        for stat in glob.glob("/proc/%d/task/*/stat" % pid):
            try:
                text = open(stat).read()
            except OSError:
                continue
            n += text[text.rfind(")") + 2:].startswith("R")
    return n


def launch(count, group):
    env = dict(base_env)
    if group:
        env["POOLSHIM_GROUP"] = group
    t0 = time.monotonic()
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(count)]
    samples = []
    running = {p.pid: p for p in procs}
    cpu = 0.0
    while running:
        if time.monotonic() - t0 > timeout:
            for p in procs:
                p.kill()
            sys.exit("group_bench: a run took more than %d s" % timeout)
        for pid in list(running):
            # wait4 gives the CPU time each host used: a measure the machine's other load
            # does not change much (spinning idle workers cost CPU; waiting ones do not).
            got, status, usage = os.wait4(pid, os.WNOHANG)
            if got == pid:
                running.pop(pid).returncode = os.waitstatus_to_exitcode(status)
                cpu += usage.ru_utime + usage.ru_stime
        if count > 1 and running:
            samples.append(threads_in_r(list(running)))
        time.sleep(0.002)
    wall = (time.monotonic() - t0) * 1000
    for p in procs:
        out, err = p.stdout.read(), p.stderr.read()
        if p.returncode != 0 or b"status=ok" not in out:
            sys.exit("group_bench: a host failed (%d):\n%s\n%s" % (p.returncode, out.decode(), err.decode()))
    return wall, samples, cpu * 1000


ideal, without, grouped = [], [], []
s_without, s_grouped = [], []
cpu_ideal, cpu_without, cpu_grouped = [], [], []
for r in range(runs):
    w, _, c = launch(1, None)
    ideal.append(w); cpu_ideal.append(c)
    w, s, c = launch(4, None)
    without.append(w); s_without += s; cpu_without.append(c)
    group = "bench-%d-%d" % (os.getpid(), r)
    try:
        w, s, c = launch(4, group)
        cpu_grouped.append(c)
    finally:
        path = "/dev/shm/poolshim-%d-%s" % (os.geteuid(), group)
        if os.path.exists(path):
            os.unlink(path)
    grouped.append(w); s_grouped += s

budget = os.cpu_count() if not hasattr(os, "sched_getaffinity") else len(os.sched_getaffinity(0))
med_ideal = statistics.median(ideal)


med_cpu_ideal = statistics.median(cpu_ideal)


def row(name, walls, cpus):
    m, c = statistics.median(walls), statistics.median(cpus)
    return "| %s | %.0f | %.0f | %.0f | %.2f | %.0f | %.2f |" % (
        name, m, min(walls), max(walls), m / (4 * med_ideal), c, c / (4 * med_cpu_ideal))


def dist(samples):
    if not samples:
        return "| - | - | - | - | - |"
    q = sorted(samples)
    over = sum(s > budget for s in samples) / len(samples)
    return "| %d | %d | %d | %d | %.0f%% |" % (len(q), statistics.median(q), q[int(0.9 * (len(q) - 1))],
                                           q[-1], 100 * over)


def hist(samples):
    return " ".join("%d:%d" % (v, samples.count(v)) for v in sorted(set(samples)))


lines = [
    "## Four processes, one budget (POOLSHIM_GROUP)",
    "",
    "4 legacy hosts (module_a, %d parallel_for calls of %d items of %.1f us) at once under the shim,"
    " budget %d each (affinity mask); %d runs, interleaved; load average before: %s." %
    (calls, items, spin_ns / 1000, budget, runs, open("/proc/loadavg").read().split()[0]),
    "Ideal = 4 x one host alone (median %.0f ms wall, %.0f ms CPU): the four one after the other."
    % (med_ideal, med_cpu_ideal),
    "CPU = user + system time of the 4 hosts (wait4): it does not depend much on the machine's"
    " other load, the wall time does.",
    "",
    "| 4 processes | median wall ms | min | max | wall / ideal | median CPU ms | CPU / ideal |",
    "|---|---|---|---|---|---|---|",
    row("without group", without, cpu_without),
    row("POOLSHIM_GROUP", grouped, cpu_grouped),
    "",
    "Threads of the 4 processes in state R, sampled every ~2 ms (/proc/PID/task/*/stat):",
    "",
    "| 4 processes | samples | median | p90 | max | samples above the budget (%d) |" % budget,
    "|---|---|---|---|---|---|",
    "| without group " + dist(s_without),
    "| POOLSHIM_GROUP " + dist(s_grouped),
    "",
    "Distribution (threads:samples) without group: %s" % hist(s_without),
    "",
    "Distribution (threads:samples) with group: %s" % hist(s_grouped),
    "",
]
text = "\n".join(lines)
open(out_md, "w").write(text)
print(text)
EOF
