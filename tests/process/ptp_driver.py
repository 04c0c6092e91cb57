#!/usr/bin/env python3
"""Process tests of the pthreadpool surface (issue 3): runs tests/fixtures/ptp/ptp_host without
and with LD_PRELOAD=libpoolshim.so, each in a clean environment (inherited LD_PRELOAD and
POOLSHIM_* dropped) with a timeout, and checks what it prints and what the shim logs.

usage: ptp_driver.py SCENARIO --shim LIB --host EXE --modules DIR [--timeout S]

scenarios:
  one_pool    ptp_debian.so (links Debian's libpthreadpool) and ptp_own.so (own exported copy)
              land on one pool: the second adds no thread, the log names both modules;
              ptp_hidden.so (hidden copy), loaded after them, keeps its own pool.
  hidden      ptp_hidden.so (hidden copy) keeps its own pool and threads, and is reported.
  executorch  legacy ExecuTorch modules handing get_pthreadpool() to their own pthreadpool
              calls: ptp_et_shared.so gets the shared handle, ptp_et_hidden.so its own pool.
  disabled    POOLSHIM_DISABLE=pthreadpool: every module gets a pool of Debian's engine.
Every scenario also requires the same results with and without the shim and no error counted
by the modules' own pthreadpool copies (a copy handed a pool it did not create).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from proc_checks import preload_value

THREADS = "3"  # what each module asks pthreadpool_create for; also the shim's budget


def run_host(args, modules, preload, extra_env=None):
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith("POOLSHIM_")}
    log = None
    if preload:
        fd, log = tempfile.mkstemp(prefix="poolshim_ptp_", suffix=".log")
        os.close(fd)
        env.update(LD_PRELOAD=preload_value(args.shim), POOLSHIM_NUM_THREADS=THREADS, POOLSHIM_LOG="info",
                   POOLSHIM_LOG_FILE=log)
    env.update(extra_env or {})
    cmd = [args.host, THREADS] + [os.path.join(args.modules, m) for m in modules]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        fail(f"timeout after {args.timeout}s: {' '.join(cmd)}")
    text = ""
    if log:
        with open(log) as f:
            text = f.read()
        os.unlink(log)
    label = "with shim" if preload else "without shim"
    print(f"--- {label}\n{proc.stdout}{proc.stderr}{text}", end="")
    if proc.returncode != 0:
        fail(f"{label}: exit code {proc.returncode}")
    if proc.stderr.strip():
        fail(f"{label}: unexpected stderr")
    rows = {}
    for line in proc.stdout.splitlines():
        fields = dict(item.split("=", 1) for item in line.split())
        rows[fields["module"]] = {k: (v if k in ("module", "result") else int(v))
                                  for k, v in fields.items()}
    for m in modules:
        if m not in rows:
            fail(f"{label}: no line for {m}")
        if rows[m]["errors"] != 0:
            fail(f"{label}: {m}'s own pthreadpool copy was handed a pool it did not create")
    return rows, text


def delta(rows, module):
    return rows[module]["tasks_after"] - rows[module]["tasks_before"]


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def same_results(plain, shimmed, modules):
    for m in modules:
        check(plain[m]["result"] == shimmed[m]["result"],
              f"{m}: result {shimmed[m]['result']} under the shim, {plain[m]['result']} without")


def log_has(log, pattern, what):
    check(re.search(pattern, log, re.M), f"the log does not show {what} (/{pattern}/)")


def one_pool(args):
    mods = ["ptp_debian.so", "ptp_own.so", "ptp_hidden.so"]
    plain, _ = run_host(args, mods, preload=False)
    shimmed, log = run_host(args, mods, preload=True)
    same_results(plain, shimmed, mods)
    # Without the shim each module starts its own workers.
    check(delta(plain, "ptp_debian.so") > 0 and delta(plain, "ptp_own.so") > 0,
          "without the shim both modules should start threads of their own")
    check(plain["ptp_own.so"]["private"] == 1, "without the shim ptp_own.so uses its own copy")
    # With it: the first module's call starts the one pool, the second adds nothing.
    check(delta(shimmed, "ptp_debian.so") == int(THREADS) - 1,
          "the shared pool should start budget - 1 workers")
    check(delta(shimmed, "ptp_own.so") == 0, "ptp_own.so started threads of its own under the shim")
    check(shimmed["ptp_own.so"]["private"] == 0, "ptp_own.so's create did not reach the shim")
    # The hidden copy next to them keeps its own pool.
    check(shimmed["ptp_hidden.so"]["private"] == 1 and delta(shimmed, "ptp_hidden.so") > 0,
          "ptp_hidden.so should keep its own pool and workers")
    for m in mods[:2]:
        check(shimmed[m]["threads"] == int(THREADS), f"{m}: get_threads_count is not the grant")
        log_has(log, rf"pthreadpool_create\({THREADS}\) from \S*{re.escape(m)} -> shared pool handle",
                f"{m} landing on the shared pool")


def hidden(args):
    # The hidden module first: the shim reports the modules loaded when a module first calls it.
    mods = ["ptp_hidden.so", "ptp_debian.so"]
    plain, _ = run_host(args, mods, preload=False)
    shimmed, log = run_host(args, mods, preload=True)
    same_results(plain, shimmed, mods)
    check(shimmed["ptp_hidden.so"]["private"] == 1, "ptp_hidden.so lost its own pool")
    check(delta(shimmed, "ptp_hidden.so") == int(THREADS) - 1,
          "ptp_hidden.so should keep its own workers under the shim")
    check(not re.search(r"pthreadpool_create\(\d+\) from \S*ptp_hidden\.so", log),
          "a hidden copy's create cannot reach the shim")
    log_has(log, r"ptp_hidden\.so.*unreachable", "ptp_hidden.so reported as unreachable")


def executorch(args):
    mods = ["ptp_et_shared.so", "ptp_et_hidden.so"]
    plain, _ = run_host(args, mods, preload=False)
    shimmed, log = run_host(args, mods, preload=True)
    same_results(plain, shimmed, mods)
    for rows in (plain, shimmed):
        check(rows["ptp_et_hidden.so"]["private"] == 1,
              "ptp_et_hidden.so's get_pthreadpool() must return its own copy's pool")
        check(rows["ptp_et_shared.so"]["threads"] == 1, "ptp_et_shared.so got no pool")
    check(delta(shimmed, "ptp_et_shared.so") == int(THREADS) - 1,
          "ptp_et_shared.so should run on the shared pool (budget - 1 workers)")
    log_has(log, r"get_pthreadpool\(\) from \S*ptp_et_shared\.so -> shared pool handle",
            "ptp_et_shared.so receiving the shared handle")
    # Issue 3, point 3: said at warn.
    log_has(log, r"warning: .*get_pthreadpool\(\) from \S*ptp_et_hidden\.so\b.*\bown\b",
            "a warning that ptp_et_hidden.so keeps its own pool")


def disabled(args):
    mods = ["ptp_debian.so", "ptp_own.so", "ptp_hidden.so"]
    plain, _ = run_host(args, mods, preload=False)
    shimmed, log = run_host(args, mods, preload=True, extra_env={"POOLSHIM_DISABLE": "pthreadpool"})
    same_results(plain, shimmed, mods)
    # Untouched: each create makes a pool of Debian's engine with its own workers.
    for m in mods:
        check(delta(shimmed, m) == int(THREADS) - 1, f"{m}: expected a pool of its own")
    check(shimmed["ptp_own.so"]["private"] == 0, "ptp_own.so's calls should reach Debian's engine")
    log_has(log, r"POOLSHIM_DISABLE=pthreadpool: forwarding", "the passthrough")


SCENARIOS = {"one_pool": one_pool, "hidden": hidden, "executorch": executorch, "disabled": disabled}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--shim", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--modules", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    SCENARIOS[args.scenario](args)
    print("PASS")


if __name__ == "__main__":
    main()
