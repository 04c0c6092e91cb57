"""Team threads beyond the budget (issue 18, point 2; shim/core/gang.h): under
POOLSHIM_OPENMP=shim, a team larger than the pool's idle workers still gets its threads, as
libgomp would create them. tests/fixtures/openmp/team_threads.c runs teams of OMP_NUM_THREADS=4
on a budget of 2 (POOLSHIM_NUM_THREADS=2). Checks: the team has 4 members; the threads are
counted (poolshim_info.team_threads, at least 2: the pool has one worker) and are the threads
named poolshim-team; the log says so once; `poolshim info --pid` (text and --json) shows them.
Without the shim the program's team is 4 and the field reads -1 (no shim); forwarding to libgomp
starts none; a team of 2 on the budget of 2 starts none either (its first region waits for the
worker it starts).

usage: openmp_team_threads.py [--part team|torch] --shim SO --poolshim CMD --program EXE
                              --python PY --pythonpath DIR
  team   (default) the checks above;
  torch  poolshim.info() in Python shows the team threads too: Debian's PyTorch (PY) running an
         aten op at 4 threads on a budget of 2. Skipped (exit 77, with the reason) when PY does
         not exist or cannot import torch.
"""
import argparse
import json
import os
import re
import subprocess

import proc_util as pu

ENV = {"OMP_NUM_THREADS": "4", "POOLSHIM_NUM_THREADS": "2"}


def line_of(out):
    m = re.search(r"team=(\d+) team_threads=(-?\d+) named=(\d+)", out)
    return tuple(int(x) for x in m.groups()) if m else None


def run_host(a, env, pid_check=False):
    p = pu.spawn([a.program], env, what="team_threads", timeout=a.timeout, stdin=subprocess.PIPE,
                 text=True)
    first = p.stdout.readline()
    p.stdout.readline()  # ready
    info = text = None
    if pid_check:
        text = pu.run([a.poolshim, "info", "--pid", str(p.pid)], what="poolshim info --pid")
        info = pu.run([a.poolshim, "info", "--json", "--pid", str(p.pid)],
                      what="poolshim info --json --pid")
    pu.finish(p, "\n")
    return line_of(first), text, info


def team(a):
    # A team that fits the budget starts no thread beyond it, the first region included: the
    # worker that region starts is waited for (a gang thread started instead stayed and spun
    # beside it for the process's life, 1 run in 2). Five processes, each a first region.
    fits = dict(ENV, OMP_NUM_THREADS="2")
    for i in range(5):
        got, _, _ = run_host(a, pu.clean_env(LD_PRELOAD=a.shim, POOLSHIM_OPENMP="shim", **fits))
        pu.check(got is not None and got[0] == 2 and got[1] == 0 and got[2] == 0,
                 f"POOLSHIM_OPENMP=shim, a team of 2 on a budget of 2 (run {i + 1}): no team "
                 f"thread ({got})")
    got, _, _ = run_host(a, pu.clean_env(**ENV))
    pu.check(got is not None and got[0] == 4 and got[1] == -1 and got[2] == 0,
             f"without the shim: a team of 4, no shim, no team thread ({got})")
    got, _, _ = run_host(a, pu.clean_env(LD_PRELOAD=a.shim, POOLSHIM_OPENMP="forward", **ENV))
    pu.check(got is not None and got[0] == 4 and got[1] == 0 and got[2] == 0,
             f"forwarding to libgomp: a team of 4, no team thread of the shim ({got})")

    env = pu.clean_env(LD_PRELOAD=a.shim, POOLSHIM_OPENMP="shim", **ENV)
    fd_log = pu.run([a.program], env, what="team_threads (log)", log="info", input="\n",
                    timeout=a.timeout)
    lines = [l for l in fd_log.log.splitlines() if "started a team thread beyond the budget" in l]
    pu.check(len(lines) == 1 and "poolshim info counts them" in lines[0],
             f"POOLSHIM_OPENMP=shim: the log says it once ({lines})")
    got, text, info = run_host(a, env, pid_check=True)
    pu.check(got is not None and got[0] == 4, f"POOLSHIM_OPENMP=shim: a team of 4 ({got})")
    if got is None:
        return
    team, counted, named = got
    print(f"team={team} team_threads={counted} named={named}")
    pu.check(counted >= 2, f"poolshim_info.team_threads counts the threads beyond the budget "
             f"(at least 2 for a team of 4 beside 1 worker; {counted})")
    pu.check(counted == named, f"they are the threads named poolshim-team ({counted} vs {named})")
    m = re.search(r"team threads beyond the budget: (\d+)", text.stdout)
    pu.check(m is not None and int(m.group(1)) == named,
             f"poolshim info --pid shows them ({text.stdout!r})")
    j = json.loads(info.stdout) if info.returncode == 0 else {}
    pu.check(j.get("team_threads") == named, f"poolshim info --json --pid: team_threads ({j.get('team_threads')})")


def torch(a):
    if not os.path.exists(a.python):
        pu.skip(f"no interpreter at {a.python} (POOLSHIM_TORCH_PYTHON) to import torch")
    probe = ("import torch, json, poolshim\n"
             "torch.set_num_threads(4)\n"
             "for _ in range(3): torch.sigmoid(torch.randn(1 << 20))\n"
             "print(json.dumps(poolshim.info().get('team_threads')))")
    r = pu.run([a.python, "-c", probe], pu.clean_env(LD_PRELOAD=a.shim, PYTHONPATH=a.pythonpath,
               POOLSHIM_OPENMP="shim", POOLSHIM_NUM_THREADS="2"), what="torch probe",
               timeout=a.timeout)
    if r.returncode != 0 and "No module named 'torch'" in r.stderr:
        pu.skip(f"torch is not importable by {a.python}: poolshim.info() in torch is not checked")
    pu.check(r.returncode == 0 and r.stdout.strip().isdigit() and int(r.stdout.strip()) >= 2,
             f"poolshim.info()['team_threads'] in torch at 4 threads on a budget of 2 "
             f"({r.stdout.strip()!r}, {r.stderr[-300:]!r})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=["team", "torch"], default="team")
    ap.add_argument("--shim", required=True)
    ap.add_argument("--poolshim", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    pu.main("openmp.team_threads" + ("_torch" if a.part == "torch" else ""),
            lambda: (torch if a.part == "torch" else team)(a))


if __name__ == "__main__":
    main()
