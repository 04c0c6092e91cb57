#!/usr/bin/env python3
"""Runs tests/process/torch_workload.py with Debian's PyTorch interpreter, without and with
LD_PRELOAD=libpoolshim.so (clean environments, a timeout), and checks: bitwise identical
results at every step, and the shim's log showing libtorch_cpu's pthreadpool landing on the one
pool. Exits 77 (CTest SKIP_RETURN_CODE) when that interpreter cannot import torch.

usage: torch_driver.py --python EXE --shim LIB --workload SCRIPT [--timeout S]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from proc_checks import preload_value

SKIP = 77


def run(args, preload):
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith(("POOLSHIM_", "OMP_", "MKL_"))}
    log = None
    if preload:
        fd, log = tempfile.mkstemp(prefix="poolshim_torch_", suffix=".log")
        os.close(fd)
        env.update(LD_PRELOAD=preload_value(args.shim), POOLSHIM_LOG="info", POOLSHIM_LOG_FILE=log)
    try:
        proc = subprocess.run([args.python, args.workload], env=env, capture_output=True,
                              text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print(f"FAIL: timeout after {args.timeout}s ({'with' if preload else 'without'} the shim)")
        sys.exit(1)
    text = ""
    if log:
        with open(log) as f:
            text = f.read()
        os.unlink(log)
    print(f"--- {'with' if preload else 'without'} shim (rc {proc.returncode})\n"
          f"{proc.stdout}{proc.stderr}{text}", end="")
    return proc, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--timeout", type=float, default=90)
    args = ap.parse_args()
    if not os.access(args.python, os.X_OK):
        print(f"SKIP: {args.python} not found")
        sys.exit(SKIP)

    plain, _ = run(args, preload=False)
    if plain.returncode == SKIP:
        print("SKIP: torch is not importable by", args.python)
        sys.exit(SKIP)
    if plain.returncode != 0:
        print("FAIL: the workload failed without the shim")
        sys.exit(1)
    shimmed, log = run(args, preload=True)
    if shimmed.returncode != 0:
        print("FAIL: the workload failed under the shim")
        sys.exit(1)
    if shimmed.stdout != plain.stdout or not plain.stdout.strip():
        print("FAIL: results differ with and without the shim")
        sys.exit(1)
    for pattern, what in [
            (r"pthreadpool_create\(\d+\) from \S*libtorch_cpu\S* -> shared pool handle",
             "libtorch_cpu's pthreadpool landing on the shared pool"),
            (r"pool started: \d+ threads", "the one pool starting")]:
        if not re.search(pattern, log):
            print(f"FAIL: the log does not show {what} (/{pattern}/)")
            sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
