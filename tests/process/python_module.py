"""The pure-Python poolshim module (python/poolshim) in real interpreters.

usage: python_module.py CHECK --pythonpath DIR --shim LIB [--python PY] [--fixture-dir DIR]
CHECK: cpython | limit | torch | torch-pools
  cpython  info() without and with the shim (budget, source, modules of the CPython fixture
           extensions), python -m poolshim run (preload, budget, runtime variables, opt-out,
           usage errors), limit() without the shim
  limit    poolshim.limit() on the cap API: the budget in force inside, nesting, restore
           (skipped, exit 77, while the library's poolshim_set_budget is the interim stub)
  torch    Debian's PyTorch: the OpenMP team follows the budget under `python -m poolshim run`
           and `poolshim run`, the other runtimes are named by info() and the load-time log
  torch-pools  threadpool_info() in Debian's PyTorch after an OpenMP matmul and an XNNPACK op,
           without and with the shim: its OpenMP rows are what Debian's threadpoolctl reports,
           the shim's live workers are the threads /proc/self/task names "poolshim", and the
           pools' known threads fit in /proc/self/task (skipped without torch or threadpoolctl)
"""
import argparse
import json
import os
import subprocess
import sys

import proc_util
from proc_util import check, clean_env, finish, main, skip, spawn


def run(argv, env, timeout=180):
    return proc_util.run(argv, env, timeout=timeout)


def py_json(a, code, env, pre=()):
    """Runs `code` (which prints one JSON line last) in a.python; returns (dict or None, result)."""
    r = run(list(pre) + [a.python, "-c", code], env)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1]), r
    except (ValueError, IndexError):
        sys.stdout.write(f"stdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}\n")
        return None, r


def cmd_cpython(a):
    shim = os.path.realpath(a.shim)
    env = clean_env(PYTHONPATH=a.pythonpath)
    info, r = py_json(a, "import poolshim, json; print(json.dumps(poolshim.info()))", env)
    check(info is not None and info["loaded"] is False and "not loaded" in info["message"],
          "without the shim, info() says plainly that it is not loaded")
    r = run([a.python, "-c", "import poolshim\ntry:\n  with poolshim.limit(1): pass\nexcept poolshim.PoolshimNotLoaded as e: print('refused:', e)"], env)
    check("refused:" in r.stdout and "not loaded" in r.stdout, "limit() without the shim raises PoolshimNotLoaded with a clear message")
    r = run([a.python, "-c", "import poolshim\ntry:\n  poolshim.limit(0).__enter__()\nexcept ValueError as e: print('bad:', e)"], env)
    check("bad:" in r.stdout, "limit(0) is a ValueError")

    penv = clean_env(PYTHONPATH=a.pythonpath + os.pathsep + (a.fixture_dir or ""), LD_PRELOAD=shim,
                     POOLSHIM_NUM_THREADS="3")
    code = ("import poolshim, json\n"
            + ("import ext_a, ext_b\next_a.work(1, 64, 0); ext_b.work(1, 64, 0)\n" if a.fixture_dir else "")
            + "print(json.dumps(poolshim.info()))")
    info, r = py_json(a, code, penv)
    check(info is not None and info["loaded"] is True, "under LD_PRELOAD, info() finds the shim")
    if info:
        check(os.path.realpath(info["library"]) == shim, f"info() names the preloaded library ({info['library']})")
        check(info["budget"] == 3 and "POOLSHIM_NUM_THREADS" in (info["budget_source"] or ""),
              "info() reads the budget and its source through ctypes")
        check(info["pool_size"] is not None and info["pool_size"] >= 1 and info["log_level"] == "off",
              "info() reads the pool size and the log level")
        if a.fixture_dir:
            mods = {os.path.basename(m["path"]).split(".")[0]: m for m in info["modules"]}
            check(mods.get("ext_a", {}).get("executorch") == "redirected" and "ext_b" in mods,
                  f"info() lists the extensions with their verdicts ({sorted(mods)})")
            check(info["pool_started"] is True, "the extensions' work started the one pool")

    # python -m poolshim run
    renv = clean_env(PYTHONPATH=a.pythonpath)
    probe = ("import poolshim, json, os; i = poolshim.info(); print(json.dumps({'loaded': i['loaded'], "
             "'lib': i.get('library'), 'budget': i.get('budget'), 'preload': os.environ.get('LD_PRELOAD'), "
             "'omp': os.environ.get('OMP_NUM_THREADS'), 'blas': os.environ.get('OPENBLAS_NUM_THREADS'), "
             "'mkl': os.environ.get('MKL_NUM_THREADS')}))")
    out, r = py_json(a, probe, renv, pre=[a.python, "-m", "poolshim", "run", "--threads", "2", "--"])
    check(out is not None and out["loaded"] and os.path.realpath(out["lib"]) == shim and out["budget"] == 2,
          "python -m poolshim run --threads 2 preloads the build's library with budget 2")
    check(out is not None and out["omp"] == "2" and out["blas"] == "2" and out["mkl"] == "2",
          "run sets OMP/OPENBLAS/MKL_NUM_THREADS to the budget when unset")
    out, r = py_json(a, probe, clean_env(PYTHONPATH=a.pythonpath, OMP_NUM_THREADS="5", LD_PRELOAD="/nonexistent/x.so"),
                     pre=[a.python, "-m", "poolshim", "run", "--threads", "2", "--"])
    check(out is not None and out["omp"] == "5" and out["blas"] == "2", "a runtime variable already set is kept")
    check(out is not None and out["preload"] == shim + ":/nonexistent/x.so", "the old LD_PRELOAD is kept after the shim")
    out, r = py_json(a, probe, renv, pre=[a.python, "-m", "poolshim", "run", "--no-runtime-env", "--"])
    check(out is not None and out["omp"] is None and out["mkl"] is None, "--no-runtime-env leaves them unset")
    nested = [a.python, "-m", "poolshim", "run", "--", a.python, "-m", "poolshim", "run", "--"]
    out, r = py_json(a, probe, renv, pre=nested)
    check(out is not None and out["preload"] == shim, "nested runs preload the shim once")
    for bad in (["--threads", "0"], ["--threads", "x"], ["--log", "loud"], ["--bogus"], [], ["--"],
                ["--library", "/nonexistent/libpoolshim.so"]):
        r = run([a.python, "-m", "poolshim", "run"] + bad + (["true"] if bad and bad != ["--"] else []), renv)
        check(r.returncode == 2 and r.stderr.strip() != "", f"python -m poolshim run {' '.join(bad)}: exit 2 with a message")
    r = run([a.python, "-m", "poolshim", "run", "--", "/nonexistent/cmd"], renv)
    check(r.returncode == 127 and "cannot execute" in r.stderr, "a command that cannot run: exit 127")
    r = run([a.python, "-m", "poolshim", "run", "--", "sh", "-c", "exit 9"], renv)
    check(r.returncode == 9, "the command's exit status passes through")
    r = run([a.python, "-m", "poolshim", "--version"], renv)
    check(r.returncode == 0 and r.stdout.startswith("poolshim ") and "unknown" not in r.stdout,
          "python -m poolshim --version reports the build's version")


def cmd_limit(a):
    shim = os.path.realpath(a.shim)
    env = clean_env(PYTHONPATH=a.pythonpath, LD_PRELOAD=shim, POOLSHIM_NUM_THREADS="2")
    code = r"""
import json, poolshim
out = {}
with poolshim.limit(1) as b:
    out['inside'] = b
    out['info_inside'] = poolshim.info()['budget']
    with poolshim.limit(2) as b2:
        out['nested'] = b2
    out['after_nested'] = poolshim.info()['budget']
out['after'] = poolshim.info()['budget']
try:
    with poolshim.limit(1):
        raise KeyError('x')
except KeyError:
    out['after_exception'] = poolshim.info()['budget']
print(json.dumps(out))
"""
    out, r = py_json(a, code, env)
    if out is not None and out["inside"] == 2:
        skip("this library's poolshim_set_budget() ignores the cap (the interim stub); limit() follows "
             "the documented contract and is tested once the core implements it")
    check(out is not None and out["inside"] == 1 and out["info_inside"] == 1, "inside limit(1) the budget in force is 1")
    check(out is not None and out["nested"] == 2 and out["after_nested"] == 1, "a nested limit(2) gives 2, then restores 1")
    check(out is not None and out["after"] == 2 and out["after_exception"] == 2,
          "the cap is removed on exit, also when the block raises")


def counts_match(j):
    c = j["counts"]
    kinds = {"own copy": "own_copy", "unused copy": "unused_copy", "client": "client", "other runtime": "other_runtime",
             "provider": "provider", "not read": "not_read", "other": "other"}
    by_row = {}
    for m in j["modules"]:
        by_row[kinds[m["row"]]] = by_row.get(kinds[m["row"]], 0) + 1
    return c["listed"] == len(j["modules"]) and all(c[k] == by_row.get(k, 0) for k in kinds.values())


def audit_torch(a, env, torch_dir):
    """`poolshim audit` on Debian's torch: the clients (libtorch_cpu, libXNNPACK) are listed with
    where their calls go, --pid says whether the shim is loaded, the counts match the rows. The
    process with the shim also checks info() and the load-time log (one torch import for all)."""
    r = run([a.poolshim, "audit", "--json", torch_dir], env)
    j = json.loads(r.stdout)
    clients = [m["path"] for m in j["modules"] if m["pthreadpool"]["client"]]
    check(any("libtorch_cpu" in p for p in clients), f"audit of {torch_dir} lists libtorch_cpu as a pthreadpool client")
    check(counts_match(j), "audit --json: the counts match the rows")
    # An XNNPACK op (through pthreadpool) makes the shim report the modules at POOLSHIM_LOG=info.
    code = ("import torch, poolshim, json, sys\n"
            "w = torch.ops.prepacked.linear_clamp_prepack(torch.randn(8, 8), torch.randn(8))\n"
            "torch.ops.prepacked.linear_clamp_run(torch.randn(4, 8), w)\n"
            "print('ready', flush=True); sys.stdin.read()\n"
            "print(json.dumps(poolshim.info()))")
    for preload in ("", os.path.realpath(a.shim)):
        penv = clean_env(PYTHONPATH=a.pythonpath, LD_PRELOAD=preload, POOLSHIM_LOG="info") if preload else env
        p = spawn([a.python, "-c", code], penv, what=f"torch {'with' if preload else 'without'} the shim",
                  timeout=180, stdin=subprocess.PIPE, text=True)
        try:
            p.stdout.readline()
            t = run([a.poolshim, "audit", "--pid", str(p.pid)], env)
            r = run([a.poolshim, "audit", "--json", "--pid", str(p.pid)], env)
            j = json.loads(r.stdout)
        finally:
            out, err = finish(p, "")
        what = "with the shim" if preload else "without the shim"
        check(j["process"]["shim_loaded"] == bool(preload), f"audit --pid of torch {what}: shim_loaded is {bool(preload)}")
        first = t.stdout.splitlines()[0] if t.stdout else ""
        check(("libpoolshim is loaded" in first) if preload else ("libpoolshim is NOT loaded" in first),
              f"audit --pid {what} says so on its first line ({first!r})")
        xnn = [m for m in j["modules"] if "libXNNPACK" in m["path"] or "libtorch_cpu" in m["path"]]
        calls = [m["pthreadpool"]["client_calls"] for m in xnn]
        check(len(xnn) >= 1 and all(("reach the shim" in c) if preload else ("libpthreadpool" in c) for c in calls),
              f"audit --pid {what}: libtorch_cpu/libXNNPACK are clients whose calls go to "
              f"{'the shim' if preload else 'libpthreadpool (its own pool)'}")
        cells = [m["pthreadpool"]["cell"] for m in j["modules"] if m["pthreadpool"]["verdict"] == "redirected"]
        check(all(c == ("redirected" if preload else "reachable") for c in cells),
              f"audit --pid {what}: copies read {'redirected' if preload else 'reachable, not redirected'} ({cells})")
        rts = [m["runtime"]["name"] for m in j["modules"] if m["runtime"]]
        check(any("libgomp" in n for n in rts), f"audit --pid {what} names libgomp as another runtime ({rts})")
        check(counts_match(j), f"audit --pid {what}: the counts match the rows")
        check(j["exit_status"] == 0 and j["complete"], f"audit --pid {what}: complete, exit 0")
        try:
            info = json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            info = {}
        if not preload:
            check(info.get("loaded") is False, "info() in torch without the shim: not loaded")
            continue
        names = [rt["name"] for rt in info.get("other_runtimes", [])]
        check(info.get("loaded") is True and any("libgomp" in n for n in names),
              f"info() in torch names its OpenMP runtime ({names})")
        # The runtimes' line (the OpenMP surface's own "calls go to .../libgomp.so.1" line may
        # come first).
        gomp = [l for l in err.splitlines() if "libgomp" in l and "openmp: " not in l]
        # The native OpenMP runtime (the default) runs libgomp's clients' regions on the shared pool.
        check(gomp and "OMP_NUM_THREADS" in gomp[0] and "run on the shared pool" in gomp[0],
              f"the load-time log at info names libgomp, where its clients' regions run and the "
              f"variable that bounds it ({gomp[:1]})")


def cmd_torch(a):
    probe = ("import torch, json, os; print(json.dumps({'threads': torch.get_num_threads(), "
             "'omp': os.environ.get('OMP_NUM_THREADS'), 'dir': os.path.dirname(torch.__file__)}))")
    env = clean_env(PYTHONPATH=a.pythonpath)
    base, r = py_json(a, probe, env)
    if base is None:
        skip(f"torch not importable by {a.python}")
    default = base["threads"]
    print(f"note: without the shim torch.get_num_threads() = {default} (torch's default: physical cores)")
    # 3 is above this machine's CPUs on purpose: a value torch would never pick by itself.
    for n in (1, 3):
        out, r = py_json(a, probe, env, pre=[a.python, "-m", "poolshim", "run", "--threads", str(n), "--"])
        check(out is not None and out["threads"] == n and out["omp"] == str(n),
              f"under python -m poolshim run --threads {n}, torch.get_num_threads() (the OpenMP team) is {n}")
    out, r = py_json(a, probe, env, pre=[a.python, "-m", "poolshim", "run", "--threads", "3", "--no-runtime-env", "--"])
    check(out is not None and out["threads"] == default and out["omp"] is None,
          "with --no-runtime-env the OpenMP team keeps torch's default")
    if a.poolshim:
        out, r = py_json(a, probe, env, pre=[a.poolshim, "run", "--threads", "3", "--"])
        check(out is not None and out["threads"] == 3, "under `poolshim run --threads 3` too")
        audit_torch(a, env, base["dir"])


POOLS_PROBE = r"""
import json, os, torch, threadpoolctl, poolshim
torch.randn(256, 256) @ torch.randn(256, 256)  # OpenMP (libgomp)
w = torch.ops.prepacked.linear_clamp_prepack(torch.randn(64, 64), torch.randn(64))
for _ in range(20):
    torch.ops.prepacked.linear_clamp_run(torch.randn(256, 64), w)  # XNNPACK: pthreadpool
pools = poolshim.threadpool_info()
tpc = threadpoolctl.threadpool_info()
comms = []
for t in os.listdir("/proc/self/task"):
    try:
        comms.append(open("/proc/self/task/%s/comm" % t).read().strip())
    except OSError:
        pass
print(json.dumps({"pools": pools, "threadpoolctl": tpc, "comms": comms}))
"""


def cmd_torch_pools(a):
    env = clean_env(runtime=False, PYTHONPATH=a.pythonpath)
    r = run([a.python, "-c", "import torch, threadpoolctl"], env)
    if r.returncode != 0:
        skip(f"{a.python} cannot import torch and threadpoolctl (python3-torch, python3-threadpoolctl: "
             f"scripts/deps.sh torch): {(r.stderr.strip().splitlines() or [''])[-1]}")
    for shim in (False, True):
        what = "with the shim" if shim else "without the shim"
        pre = [a.python, "-m", "poolshim", "run", "--threads", "2", "--"] if shim else []
        out, r = py_json(a, POOLS_PROBE, env if shim else dict(env, OMP_NUM_THREADS="2"), pre=pre)
        if not check(out is not None, f"torch probe {what} ran"):
            continue
        print(f"threadpool_info() {what}:\n" + json.dumps(out["pools"], indent=1))
        pools, tpc, comms = out["pools"], out["threadpoolctl"], out["comms"]
        head = pools[0]
        check(head["internal_api"] == "poolshim" and head["merged"] == shim,
              f"{what}: the first row is the shim's pool, merged={shim} ({head['reason']})")
        ours = sorted((os.path.realpath(p["filepath"]), p["num_threads"]) for p in pools if p["user_api"] == "openmp")
        theirs = sorted((os.path.realpath(p["filepath"]), p["num_threads"]) for p in tpc if p["user_api"] == "openmp")
        check(ours and ours == theirs, f"{what}: the OpenMP rows are threadpoolctl's (file, num_threads): {ours} vs {theirs}")
        check(all(p["num_threads"] == 2 for p in pools if p["user_api"] == "openmp"),
              f"{what}: OpenMP runs 2 threads (OMP_NUM_THREADS=2{', set by run' if shim else ''})")
        # Under the shim the native OpenMP runtime (the default) runs the regions on the one pool.
        check(all(p["merged"] == shim and ("one pool" if shim else "own pool") in p["reason"]
                  for p in pools if p["user_api"] == "openmp"),
              f"{what}: OpenMP is {'merged' if shim else 'not merged'}, and says why")
        named = comms.count("poolshim")
        check(head["active_threads"] == named, f"{what}: the shim's live workers ({head['active_threads']}) are the "
              f"threads named poolshim in /proc/self/task ({named})")
        distinct = {}
        for p in pools:
            if p["active_threads"] is not None and p["pool"] is not None:
                distinct[p["pool"]] = p["active_threads"]
        check(1 + sum(distinct.values()) <= len(comms),
              f"{what}: the main thread and the pools' known workers ({distinct}) fit in /proc/self/task ({len(comms)})")
        ptp = [p for p in pools if p["user_api"] == "pthreadpool"]
        if shim:
            check(any(p["merged"] and p["filepath"] == head["filepath"] for p in ptp),
                  f"{what}: pthreadpool handles are one row, merged into the shim's pool")
            check(head["budget"] == 2 and head["num_threads"] >= 1, f"{what}: the shim's budget is 2")
        else:
            check(named == 0, f"{what}: no thread named poolshim")
            check(all(not p["merged"] for p in ptp) and all(not p["merged"] for p in pools),
                  f"{what}: nothing is merged ({[os.path.basename(p['filepath'] or '') for p in ptp]} run their own pools)")


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--poolshim")
    ap.add_argument("--fixture-dir")
    a = ap.parse_args()
    {"cpython": cmd_cpython, "limit": cmd_limit, "torch": cmd_torch, "torch-pools": cmd_torch_pools}[a.check](a)


if __name__ == "__main__":
    main("python_module " + " ".join(sys.argv[1:2]), body)
