#!/usr/bin/env python3
"""Runs tests/process/torch_openmp_workload.py with Debian's PyTorch interpreter without the
shim, under LD_PRELOAD with POOLSHIM_OPENMP=forward (the OpenMP surface forwarding to libgomp)
and under LD_PRELOAD alone (the native runtime, the default: regions on the shim's workers), and
checks that every aten op, oneDNN
convolution and the XNNPACK+aten mixed loop gives bitwise the same result in all three, at
torch.set_num_threads(1) and (2) (issue 18, point 6). Also: F.conv2d went through oneDNN (its
digest is aten.mkldnn_convolution's), the float sums differ between 1 and 2 threads (so the
comparison does see the team's split), and the log says where the OpenMP calls went. Exits 77
(CTest SKIP_RETURN_CODE) when that interpreter cannot import torch.

usage: torch_openmp_driver.py --python EXE --shim LIB --workload SCRIPT [--timeout S]
"""
import argparse
import os

from proc_util import SKIP, check, clean_env, main, require, run, skip


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args()
    if not os.access(a.python, os.X_OK):
        skip(f"{a.python} not found")
    modes = [("without the shim", None),
             ("preloaded, POOLSHIM_OPENMP=forward", {"POOLSHIM_OPENMP": "forward"}),
             ("preloaded (native, the default)", {})]
    outputs = []
    for name, extra in modes:
        # Debian's PyTorch is not instrumented: without the shim no sanitizer runtime either.
        env = clean_env(runtime=False) if extra is None else clean_env(LD_PRELOAD=a.shim, **extra)
        r = run([a.python, a.workload], env, what=f"the workload {name}", timeout=a.timeout,
                log="info" if extra is not None else None)
        if extra is None and r.returncode == SKIP:
            skip(f"torch is not importable by {a.python}")
        require(r.returncode == 0, f"{name}: the workload runs (rc={r.returncode}, "
                f"{r.stderr[-400:]!r})")
        print(f"--- {name}\n{r.stdout}", end="")
        outputs.append(r.stdout)
        if extra is None:
            continue
        if extra.get("POOLSHIM_OPENMP") != "forward":
            check("regions run on the shim's workers" in r.log,
                  f"{name}: the log says the regions ran natively")
        else:
            check("OpenMP calls go to" in r.log and "libgomp" in r.log,
                  f"{name}: the log says the calls went to libgomp")
    rows = [dict(((l.split()[0], l.split()[1]), l.split()[2]) for l in out.splitlines()
                 if l[:1].isdigit()) for out in outputs]
    base = rows[0]
    require(len(base) > 0, "the workload printed its digests")
    print(f"{len(base)} results compared")
    for (name, _), got in zip(modes[1:], rows[1:]):
        diff = sorted(k for k in set(base) | set(got) if base.get(k) != got.get(k))
        check(not diff, f"{name}: every result bitwise as without the shim (differ: {diff})")
    head = outputs[0].splitlines()[0] if outputs[0] else ""
    if "mkldnn True" in head:
        for t in ("1", "2"):
            check(base.get((t, "conv2d")) == base.get((t, "mkldnn_convolution")),
                  f"{t} thread(s): F.conv2d went through oneDNN (its result is mkldnn_convolution's)")
    else:
        print(f"note: no oneDNN in this torch ({head})")
    check(base.get(("1", "sum")) != base.get(("2", "sum")),
          "the float sum differs between 1 and 2 threads: the comparison sees the team's split")
    for t in ("1", "2"):
        check((t, "mixed_loop") in base or "xnnpack False" in head,
              f"{t} thread(s): the XNNPACK+aten mixed loop ran")


if __name__ == "__main__":
    main("torch_openmp", body)
