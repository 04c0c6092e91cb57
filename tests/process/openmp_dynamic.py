#!/usr/bin/env python3
"""Teams under dyn-var are libgomp's (runtime/parallel.cpp, dynamic_max_threads): with
OMP_DYNAMIC=true, libgomp bounds a team by the CPUs less the 15-minute load average. The fixture
(dynamic_teams.c) runs without the shim (libgomp) and under the preload, both with
fake_loadavg.so preloaded (getloadavg answers $FAKE_LOADAVG, for libgomp and the shim alike), at
loads 0.00, 0.85, 0.95 and 1.50 (libgomp rounds with +0.1: 0.85 counts 0, 0.95 counts 1): the
team sizes must be the same, and the loads must change them (the fake was used).

usage: openmp_dynamic.py --shim LIB --fake-loadavg FAKE_LOADAVG_SO --program DYNAMIC_TEAMS
"""
import argparse

from proc_util import check, clean_env, main, run

LOADS = ("0.00", "0.85", "0.95", "1.50")


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--fake-loadavg", required=True)
    ap.add_argument("--program", required=True)
    args = ap.parse_args()
    seen = set()
    for load in LOADS:
        outs = {}
        for label, preload in (("libgomp", args.fake_loadavg),
                               ("shim", f"{args.shim}:{args.fake_loadavg}")):
            env = clean_env(OMP_DYNAMIC="true", FAKE_LOADAVG=load, LD_PRELOAD=preload)
            r = run([args.program], env, label)
            check(r.returncode == 0, f"load {load}, {label}: exit status 0 ({r.returncode})")
            outs[label] = r.stdout
        seen.add(outs["libgomp"])
        check(outs["libgomp"] == outs["shim"] and "dynamic=1" in outs["shim"],
              f"load {load}: the shim's teams are libgomp's "
              f"({outs['shim'].split()} against {outs['libgomp'].split()})")
    check(len(seen) > 1, f"the loads changed libgomp's teams (the fake was used): {len(seen)} kinds")


if __name__ == "__main__":
    main("openmp_dynamic", body)
