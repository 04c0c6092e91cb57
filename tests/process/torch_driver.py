#!/usr/bin/env python3
"""Runs tests/process/torch_workload.py with Debian's PyTorch interpreter, without and with
LD_PRELOAD=libpoolshim.so (proc_util: clean environments, a watchdog), and checks: bitwise identical
results at every step, and the shim's log showing libtorch_cpu's pthreadpool landing on the one
pool. Exits 77 (CTest SKIP_RETURN_CODE) when that interpreter cannot import torch.

usage: torch_driver.py --python EXE --shim LIB --workload SCRIPT [--timeout S]
"""
import argparse
import os
import re

from proc_util import SKIP, check, clean_env, main, require, run, skip


def run_workload(args, preload):
    label = "with" if preload else "without"
    # Debian's PyTorch is not instrumented: without the shim it runs without a sanitizer runtime.
    env = clean_env(LD_PRELOAD=args.shim) if preload else clean_env(runtime=False)
    r = run([args.python, args.workload], env, what=f"the workload {label} the shim",
            timeout=args.timeout, log="info" if preload else None)
    print(f"--- {label} shim (rc {r.returncode})\n{r.stdout}{r.stderr}{r.log}", end="")
    return r


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--timeout", type=float, default=90)
    args = ap.parse_args()
    if not os.access(args.python, os.X_OK):
        skip(f"{args.python} not found")

    plain = run_workload(args, preload=False)
    if plain.returncode == SKIP:
        skip(f"torch is not importable by {args.python}")
    require(plain.returncode == 0, "the workload runs without the shim")
    shimmed = run_workload(args, preload=True)
    require(shimmed.returncode == 0, "the workload runs under the shim")
    check(plain.stdout.strip() != "" and shimmed.stdout == plain.stdout,
          "results are bitwise the same with and without the shim")
    for pattern, what in [
            (r"pthreadpool_create\(\d+\) from \S*libtorch_cpu\S* -> shared pool handle",
             "libtorch_cpu's pthreadpool landing on the shared pool"),
            (r"pool started: \d+ threads", "the one pool starting")]:
        check(re.search(pattern, shimmed.log), f"the log shows {what} (/{pattern}/)")


if __name__ == "__main__":
    main("torch_driver", body)
