"""LLVM OpenMP's __kmpc_* ABI under the preload (issue 35): tests/fixtures/openmp/openmp_program.c
and kmpc_program.c (23 distinct __kmpc_* entry points between them), built at test time with
clang-14 -fopenmp (Debian's clang-14 and libomp-14-dev: the programs link LLVM's libomp.so.5).
The shim exports every __kmpc_* function in libomp's version node, so the program's calls enter
it; by default (POOLSHIM_KMPC=forward) each goes on to libomp. Checked, at OMP_NUM_THREADS unset, 1, 2 and
3: the output is the same without the shim, preloaded, with POOLSHIM_OPENMP=forward and with
POOLSHIM_DISABLE=openmp; the preloaded run's log (POOLSHIM_LOG=info) says the __kmpc calls went
through the shim to libomp.so.5, so the rows were reached and not bypassed, and its load-time
line on libomp.so.5 says so. With --poolshim,
`poolshim info --pools --json --pid` of a clang-built host (team_threads.c) under the preload
lists libomp.so.5 as not merged, saying the shim passes the __kmpc calls on to it (and that
POOLSHIM_KMPC=shim would not: no module imports a function it lacks), and as merged under
POOLSHIM_KMPC=shim; `poolshim audit` (files, and --pid of that host) names the programs __kmpc
clients whose calls go on to libomp, libomp.so.5 as the runtime they come back to, and which
import keeps a process on libomp under POOLSHIM_KMPC=shim (kmpc_proc_bind.c's __kmpc_push_proc_bind;
none of the others'). Skipped without clang-14 or libomp-14-dev.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

import openmp_modes as om
import proc_util as pu

PROGRAMS = ("openmp_program.c", "kmpc_program.c")


def build(a, tmp):
    exes = []
    for src in PROGRAMS:
        exe = os.path.join(tmp, src[:-2])
        r = subprocess.run([a.clang, "-fopenmp", "-O1", os.path.join(a.fixtures, src), "-o", exe,
                            "-ldl"], capture_output=True, text=True)
        pu.require(r.returncode == 0, f"clang-14 builds {src} ({r.stderr[-400:]!r})")
        needed = subprocess.run(["objdump", "-p", exe], capture_output=True, text=True).stdout
        pu.require("libomp.so.5" in needed, f"{src} links libomp.so.5 ({needed[-400:]!r})")
        exes.append(exe)
    return exes


def pools_view(a, tmp):
    """The pools view of a clang-built process under the preload: libomp's row is its own pool."""
    exe = os.path.join(tmp, "team_threads")
    includes = [f"-I{d}" for d in a.include]
    r = subprocess.run([a.clang, "-fopenmp", "-O1", *includes,
                        os.path.join(a.fixtures, "team_threads.c"), "-o", exe, "-ldl"],
                       capture_output=True, text=True)
    pu.require(r.returncode == 0, f"clang-14 builds team_threads.c ({r.stderr[-400:]!r})")
    views = {}
    for kmpc in ("forward", "shim"):
        env = pu.clean_env(LD_PRELOAD=a.shim, OMP_NUM_THREADS="2", POOLSHIM_KMPC=kmpc)
        p = pu.spawn([exe], env, what="team_threads", timeout=a.timeout, stdin=subprocess.PIPE,
                     text=True)
        p.stdout.readline()
        p.stdout.readline()  # ready
        views[kmpc] = pu.run([a.poolshim, "info", "--pools", "--json", "--pid", str(p.pid)],
                             what="poolshim info --pools --json --pid")
        if kmpc == "forward":
            audit = pu.run([a.poolshim, "audit", "--json", "--pid", str(p.pid)],
                           what="poolshim audit --json --pid")
        pu.finish(p, "\n")
    doc = json.loads(audit.stdout)
    by = {os.path.basename(m["path"]): m for m in doc["modules"]}
    host = by.get("team_threads", {}).get("openmp", {})
    pu.check(host.get("client") and "__kmpc_* calls enter the shim in this process" in
             host.get("client_calls", "") and "libomp" in host.get("client_calls", ""),
             f"audit --pid: the clang-built host is a __kmpc client whose calls enter the shim "
             f"and go on to libomp ({host})")
    rows = [e for e in json.loads(views["forward"].stdout)
            if e.get("filepath", "").endswith("libomp.so.5")]
    pu.check(len(rows) == 1 and rows[0]["merged"] is False and "__kmpc" in rows[0]["reason"] and
             "POOLSHIM_KMPC=shim would run them on the one pool" in rows[0]["reason"],
             f"poolshim info --pools: libomp.so.5 keeps its own pool, says why, and that "
             f"POOLSHIM_KMPC=shim would merge it ({rows})")
    rows = [e for e in json.loads(views["shim"].stdout)
            if e.get("filepath", "").endswith("libomp.so.5")]
    pu.check(len(rows) == 1 and rows[0]["merged"] is True and
             "POOLSHIM_KMPC=shim, and no loaded module imports" in rows[0]["reason"],
             f"poolshim info --pools, POOLSHIM_KMPC=shim: libomp.so.5's clients run on the one "
             f"pool ({rows})")


def check_audit(a, tmp, exes):
    """`poolshim audit` of the clang-built programs and of libomp.so.5 (issue 35, point 2)."""
    libomp = "/usr/lib/x86_64-linux-gnu/libomp.so.5"
    proc_bind = os.path.join(tmp, "kmpc_proc_bind")
    r = subprocess.run([a.clang, "-fopenmp", "-O1", os.path.join(a.fixtures, "kmpc_proc_bind.c"),
                        "-o", proc_bind], capture_output=True, text=True)
    pu.require(r.returncode == 0, f"clang-14 builds kmpc_proc_bind.c ({r.stderr[-400:]!r})")
    r = pu.run([a.poolshim, "audit", "--json", *exes, proc_bind, libomp],
               what="poolshim audit --json")
    pu.require(r.returncode == 0, f"audit exits 0: nothing unreachable (rc={r.returncode})")
    by = {os.path.basename(m["path"]): m for m in json.loads(r.stdout)["modules"]}
    for exe in exes:
        m = by.get(os.path.basename(exe), {})
        o = m.get("openmp", {})
        pu.check(m.get("row") == "client" and m.get("kmpc", {}).get("client") and
                 "__kmpc_* calls enter the shim" in o.get("client_calls", "") and
                 "POOLSHIM_KMPC=shim" in o.get("client_calls", ""),
                 f"audit: {os.path.basename(exe)} is a client of the __kmpc ABI, its calls "
                 f"passed on to libomp unless POOLSHIM_KMPC=shim ({m})")
        pu.check(m.get("kmpc", {}).get("blocks_native", "") is None and
                 "this module imports none" in o.get("client_calls", ""),
                 f"audit: {os.path.basename(exe)} imports nothing that keeps a process on libomp "
                 f"under POOLSHIM_KMPC=shim ({m})")
    m = by.get("kmpc_proc_bind", {})
    pu.check(m.get("kmpc", {}).get("blocks_native") == "__kmpc_push_proc_bind" and
             "which keeps the process on libomp" in m.get("openmp", {}).get("client_calls", ""),
             f"audit: kmpc_proc_bind's __kmpc_push_proc_bind import keeps a process on libomp "
             f"({m})")
    rt = by.get("libomp.so.5", {}).get("runtime") or {}
    pu.check(rt.get("name") == "OpenMP (LLVM libomp)" and
             "__kmpc_* calls enter the shim and come back to it" in rt.get("note", ""),
             f"audit: libomp.so.5 is named, with where its clients' calls go ({rt})")


def body(a):
    if not a.clang or not shutil.which(a.clang):
        pu.skip("no clang-14 (scripts/deps.sh openmp installs it)")
    modes = om.modes(a.shim, disable=True)
    with tempfile.TemporaryDirectory(prefix="poolshim_kmpc_") as tmp:
        exes = build(a, tmp)
        for exe in exes:
            name = os.path.basename(exe)
            for threads in (None, "1", "2", "3"):
                extra = {"OMP_NUM_THREADS": threads} if threads else {}
                results = []
                for mode, env in modes:
                    # Every mode here runs the program on libomp (POOLSHIM_KMPC=forward).
                    r = om.run_on_libomp([exe], pu.clean_env(**env, **extra), name, a.timeout,
                                         log="info")
                    pu.check(r.returncode == 0, f"{name}, OMP_NUM_THREADS={threads}, {mode}: "
                             f"exit 0 (rc={r.returncode}, stderr={r.stderr[-300:]!r})")
                    results.append(r)
                om.check_alike(modes, [r.stdout for r in results], threads)
                log = results[-1].log  # preloaded, the default mode
                pu.check("calls (__kmpc_*) go to" in log and "libomp.so.5" in log,
                         f"{name}, OMP_NUM_THREADS={threads}: the log says the __kmpc calls went "
                         f"through the shim to libomp.so.5 ({log!r})")
                pu.check("OpenMP (LLVM libomp): the shim forwards its clients' __kmpc calls to "
                         "it (POOLSHIM_KMPC=forward, the default)" in log,
                         f"{name}, OMP_NUM_THREADS={threads}: the load-time line on libomp.so.5 "
                         f"says why it keeps its pool ({log!r})")
            print(f"{name}: {results[0].stdout.strip()}")
        if a.poolshim:
            check_audit(a, tmp, exes)
            pools_view(a, tmp)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--clang", default="", help="clang-14; empty: skipped")
    ap.add_argument("--fixtures", required=True, help="tests/fixtures/openmp")
    ap.add_argument("--poolshim", default="", help="the command, for the pools view")
    ap.add_argument("--include", action="append", default=[],
                    help="a folder of the public headers (include/ and the generated one)")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    pu.main("openmp.kmpc_forward", lambda: body(args))
