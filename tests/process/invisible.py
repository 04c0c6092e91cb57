#!/usr/bin/env python3
"""Invisible when unused (issue 9, point 8): system programs that never ask for a thread pool,
run without and with LD_PRELOAD of the shim (proc_util: clean environments, a watchdog): stdout, stderr and
the exit status must be byte-identical. Two of the commands look at themselves from inside: the
number of threads (/proc/self/task) and the open file descriptors (/proc/self/fd) of a shell and
of python3 are part of their output, so an extra thread or descriptor is a difference. A third,
heap_at_main (tests/fixtures/invisible), prints the C heap at the start of its main: memory the
shim allocates while it is loaded is a difference too.

`ls -la /` shows the times of /tmp and friends, which other processes change at any moment, and
/proc's link count, which is the number of processes: that one number is masked, and the
preloaded run must equal the run just before it or the one just after it (three tries).

usage: invisible.py --shim LIB --heap-host HEAP_AT_MAIN
"""
import argparse
import re

from proc_util import check, clean_env, main, run

WATCHDOG = 60
INPUT = "".join(f"line {(i * 7919) % 1000:04d}\n" for i in range(2000))
COMMANDS = [
    (["ls", "-la", "/"], None),
    (["sort"], INPUT),
    (["sha256sum"], INPUT),
    (["sh", "-c", "echo out; echo err >&2; ls /proc/$$/task | wc -l; ls /proc/$$/fd; exit 3"], None),
    (["python3", "-c", "import os, sys; print(len(os.listdir('/proc/self/task')), "
      "sorted(os.listdir('/proc/self/fd'))); print('err', file=sys.stderr); sys.exit(5)"], None),
    (["gcc", "--version"], None),
    (["git", "--version"], None),
]


PROC_LINKS = re.compile(rb"^(dr-xr-xr-x +)\d+( .* proc)$", re.M)


def outcome(cmd, stdin, env):
    """(exit status, stdout with /proc's link count masked, stderr); a hang fails the driver."""
    r = run(cmd, env, timeout=WATCHDOG, input=stdin)
    return (r.returncode, PROC_LINKS.sub(rb"\1N\2", r.stdout_bytes), r.stderr_bytes)


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--heap-host", required=True)
    args = ap.parse_args()
    plain_env, shim_env = clean_env(), clean_env(LD_PRELOAD=args.shim)
    for cmd, stdin in COMMANDS + [([args.heap_host], None)]:
        name = " ".join(cmd[:2])
        for _ in range(3):
            before = outcome(cmd, stdin, plain_env)
            with_shim = outcome(cmd, stdin, shim_env)
            after = outcome(cmd, stdin, plain_env) if with_shim != before else before
            same = with_shim in (before, after)
            if same:
                break
        check(same,
              f"{name}: stdout, stderr and exit status ({before[0]}) identical under the preload")
        if not same:
            for label, r in (("without", before), ("with", with_shim)):
                print(f"--- {label}: rc={r[0]}\n{r[1][:2000]!r}\n{r[2][:2000]!r}")
    # The self-inspecting commands must really have looked: a shell with one thread and python3.
    sh = outcome(COMMANDS[3][0], None, shim_env)
    check(sh[1].split(b"\n")[1].strip() == b"1", f"sh under the preload has 1 thread ({sh[1][:80]!r})")
    heap = outcome([args.heap_host], None, shim_env)
    check(heap[1] == b"arena=0 mmapped=0 in_use=0\n",
          f"no heap at main under the preload ({heap[1][:80]!r})")


if __name__ == "__main__":
    main("invisible", body)
