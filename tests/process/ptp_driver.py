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
import sys

from proc_util import check, clean_env, main, require, run

THREADS = "3"  # what each module asks pthreadpool_create for; also the shim's budget


def run_host(args, modules, preload, extra_env=None):
    label = "with shim" if preload else "without shim"
    env = clean_env(LD_PRELOAD=args.shim, POOLSHIM_NUM_THREADS=THREADS) if preload else clean_env()
    env.update(extra_env or {})
    cmd = [args.host, THREADS] + [os.path.join(args.modules, m) for m in modules]
    r = run(cmd, env, what=f"ptp_host {label}", timeout=args.timeout, log="info" if preload else None)
    print(f"--- {label}\n{r.stdout}{r.stderr}{r.log}", end="")
    require(r.returncode == 0, f"{label}: exit code {r.returncode}")
    check(not r.stderr.strip(), f"{label}: nothing on stderr")
    rows = {}
    for line in r.stdout.splitlines():
        fields = dict(item.split("=", 1) for item in line.split())
        rows[fields["module"]] = {k: (v if k in ("module", "result") else int(v))
                                  for k, v in fields.items()}
    for m in modules:
        require(m in rows, f"{label}: a line for {m}")
        check(rows[m]["errors"] == 0, f"{label}: {m}'s own pthreadpool copy was never handed a pool it did not create")
    return rows, r.log


def delta(rows, module):
    return rows[module]["tasks_after"] - rows[module]["tasks_before"]


def same_results(plain, shimmed, modules):
    for m in modules:
        check(plain[m]["result"] == shimmed[m]["result"],
              f"{m}: result {shimmed[m]['result']} under the shim, {plain[m]['result']} without")


def log_has(log, pattern, what):
    check(re.search(pattern, log, re.M), f"the log shows {what} (/{pattern}/)")


def one_pool(args):
    mods = ["ptp_debian.so", "ptp_own.so", "ptp_hidden.so"]
    plain, _ = run_host(args, mods, preload=False)
    shimmed, log = run_host(args, mods, preload=True)
    same_results(plain, shimmed, mods)
    # Without the shim each module starts its own workers.
    check(delta(plain, "ptp_debian.so") > 0 and delta(plain, "ptp_own.so") > 0,
          "without the shim both modules start threads of their own")
    check(plain["ptp_own.so"]["private"] == 1, "without the shim ptp_own.so uses its own copy")
    # With it: the first module's call starts the one pool, the second adds nothing.
    check(delta(shimmed, "ptp_debian.so") == int(THREADS) - 1,
          "the shared pool starts budget - 1 workers")
    check(delta(shimmed, "ptp_own.so") == 0, "ptp_own.so starts no thread of its own under the shim")
    check(shimmed["ptp_own.so"]["private"] == 0, "ptp_own.so's create reaches the shim")
    # The hidden copy next to them keeps its own pool.
    check(shimmed["ptp_hidden.so"]["private"] == 1 and delta(shimmed, "ptp_hidden.so") > 0,
          "ptp_hidden.so keeps its own pool and workers")
    for m in mods[:2]:
        check(shimmed[m]["threads"] == int(THREADS), f"{m}: get_threads_count is the grant")
        log_has(log, rf"pthreadpool_create\({THREADS}\) from \S*{re.escape(m)} -> shared pool handle",
                f"{m} landing on the shared pool")


def hidden(args):
    # The hidden module first: the shim reports the modules loaded when a module first calls it.
    mods = ["ptp_hidden.so", "ptp_debian.so"]
    plain, _ = run_host(args, mods, preload=False)
    shimmed, log = run_host(args, mods, preload=True)
    same_results(plain, shimmed, mods)
    check(shimmed["ptp_hidden.so"]["private"] == 1, "ptp_hidden.so keeps its own pool")
    check(delta(shimmed, "ptp_hidden.so") == int(THREADS) - 1,
          "ptp_hidden.so keeps its own workers under the shim")
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
        check(rows["ptp_et_shared.so"]["threads"] == 1, "ptp_et_shared.so gets a pool")
    check(delta(shimmed, "ptp_et_shared.so") == int(THREADS) - 1,
          "ptp_et_shared.so runs on the shared pool (budget - 1 workers)")
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
        check(delta(shimmed, m) == int(THREADS) - 1, f"{m}: a pool of its own")
    check(shimmed["ptp_own.so"]["private"] == 0, "ptp_own.so's calls reach Debian's engine")
    log_has(log, r"POOLSHIM_DISABLE=pthreadpool: forwarding", "the passthrough")


SCENARIOS = {"one_pool": one_pool, "hidden": hidden, "executorch": executorch, "disabled": disabled}


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", choices=sorted(SCENARIOS))
    ap.add_argument("--shim", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--modules", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    SCENARIOS[args.scenario](args)


if __name__ == "__main__":
    main("ptp_driver " + " ".join(sys.argv[1:2]), body)
