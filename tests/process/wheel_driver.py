"""The Python wheel (scripts/wheel.sh) as a user meets it: built from this build tree into a
temporary folder, installed with pip (no index) into a fresh venv, then used from there with no
PYTHONPATH to the module and no path to the library.

usage: wheel_driver.py --source-dir DIR --build-dir DIR --version X.Y.Z --python PY --fixture-dir DIR
  the wheel's name, tag, metadata version (CMake's project(VERSION)), contents and console script;
  `poolshim --version`, `python -m poolshim --version`, `poolshim info --pools` without the shim;
  over the ExecuTorch-style CPython fixture (ext_a, ext_b: a private legacy pool each):
  threadpool_info() without the shim (two pools, not merged), under `poolshim run` and under
  `python -m poolshim run` (the bundled library, one pool, merged), and `poolshim info --pools
  --pid` of that process agreeing with threadpool_info() inside it.
Skipped (77) when PY has no venv, ensurepip, pip, setuptools or wheel.
"""
import argparse
import glob
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import zipfile

import proc_util
from proc_util import check, clean_env, finish, main, require, skip, spawn

CODE = r"""
import json, os, sys
import poolshim, ext_a, ext_b
ext_a.work(1, 64, 0); ext_b.work(1, 64, 0)
if sys.argv[1:] == ["wait"]:
    print("ready", flush=True); sys.stdin.read()
print(json.dumps({"pools": poolshim.threadpool_info(), "module": poolshim.__file__,
                  "ids": [ext_a.pool_id(), ext_b.pool_id()]}))
"""


def run(argv, env, timeout=120, **kw):
    return proc_util.run(argv, env, timeout=timeout, **kw)


def last_json(r, what):
    """The JSON document a child printed: its whole stdout, else its last line."""
    try:
        return json.loads(r.stdout)
    except ValueError:
        pass
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        sys.stdout.write(f"{what}: exit {r.returncode}\nstdout: {r.stdout[-3000:]}\nstderr: {r.stderr[-3000:]}\n")
        return None


def ext_rows(pools):
    """The fixture's rows: {"ext_a": row, "ext_b": row}."""
    return {os.path.basename(p["filepath"]).split(".")[0]: p for p in pools
            if p["internal_api"] == "executorch" and p["filepath"]}


def check_one_pool(out, venv, what, budget):
    if not check(out is not None, f"{what}: the probe ran"):
        return
    pools = out["pools"]
    shim = pools[0]
    site = os.path.realpath(venv)
    check(os.path.realpath(out["module"]).startswith(site), f"{what}: poolshim imported from the venv ({out['module']})")
    check(shim["internal_api"] == "poolshim" and shim["merged"] and shim["filepath"]
          and os.path.realpath(shim["filepath"]).startswith(site)
          and shim["filepath"].endswith("poolshim/_bundle/lib/libpoolshim.so"),
          f"{what}: the shim preloaded is the library bundled in the wheel ({shim['filepath']})")
    check(shim["budget"] == budget and shim["num_threads"] is not None, f"{what}: budget {budget} ({shim['budget']})")
    rows = ext_rows(pools)
    check(sorted(rows) == ["ext_a", "ext_b"] and all(r["merged"] and r["pool"] == "poolshim" for r in rows.values()),
          f"{what}: threadpool_info() lists ext_a and ext_b, merged ({ {k: r['merged'] for k, r in rows.items()} })")
    et_pools = {p["pool"] for p in pools if p["internal_api"] in ("poolshim", "executorch")}
    check(et_pools == {"poolshim"} and out["ids"][0] == out["ids"][1],
          f"{what}: one pool (pools {sorted(et_pools)}, ThreadPool* {out['ids']})")
    check(shim["active_threads"] is not None and shim["active_threads"] <= budget,
          f"{what}: the shim's workers alive now ({shim['active_threads']}) fit the budget")


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--fixture-dir", required=True)
    a = ap.parse_args()
    env0 = clean_env(runtime=False)
    env0.pop("PYTHONPATH", None)
    env0.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    r = run([a.python, "-c", "import venv, ensurepip, setuptools, wheel"], env0)
    if r.returncode == 0:
        r = run([a.python, "-m", "pip", "--version"], env0)
    if r.returncode != 0:
        skip(f"{a.python} lacks venv, ensurepip, pip, setuptools or wheel (Debian: python3-venv python3-pip "
             f"python3-setuptools python3-wheel, scripts/deps.sh test): {r.stderr.strip().splitlines()[-1:]}")

    tmp = tempfile.mkdtemp(prefix="poolshim_wheel_")
    try:
        dist = os.path.join(tmp, "dist")
        r = run([os.path.join(a.source_dir, "scripts", "wheel.sh"), "--build-dir", a.build_dir, "--out", dist,
                 "--no-build"], dict(env0, PYTHON=a.python), timeout=180)
        require(r.returncode == 0, f"scripts/wheel.sh --no-build builds the wheel (exit {r.returncode}: {r.stderr[-1500:]})")
        wheel = r.stdout.strip().splitlines()[-1]
        plat = f"linux_{platform.machine()}"
        name = f"poolshim-{a.version}-py3-none-{plat}.whl"
        check(os.path.basename(wheel) == name and glob.glob(os.path.join(dist, "*.whl")) == [wheel],
              f"one wheel, named {name} ({os.path.basename(wheel)})")
        with zipfile.ZipFile(wheel) as z:
            names = z.namelist()
            meta = z.read(f"poolshim-{a.version}.dist-info/METADATA").decode()
            tags = z.read(f"poolshim-{a.version}.dist-info/WHEEL").decode()
            points = z.read(f"poolshim-{a.version}.dist-info/entry_points.txt").decode()
            cmd_mode = z.getinfo("poolshim/_bundle/bin/poolshim").external_attr >> 16
        check(f"\nVersion: {a.version}\n" in meta, f"the metadata's version is CMake's project(VERSION) {a.version}")
        check(f"Tag: py3-none-{plat}" in tags and "Root-Is-Purelib: false" in tags, f"tagged py3-none-{plat}, platlib")
        check("poolshim/_bundle/lib/libpoolshim.so" in names and cmd_mode & 0o111,
              "it bundles libpoolshim.so and the executable poolshim command")
        check("poolshim = poolshim._cli:main" in points, "it declares the poolshim console script")

        venv = os.path.join(tmp, "venv")
        r = run([a.python, "-m", "venv", venv], env0, timeout=180)
        require(r.returncode == 0, f"python3 -m venv makes a fresh venv ({r.stderr[-800:]})")
        vpy, vcmd = os.path.join(venv, "bin", "python"), os.path.join(venv, "bin", "poolshim")
        r = run([vpy, "-m", "pip", "install", "--no-index", "--no-deps", wheel], env0, timeout=180)
        require(r.returncode == 0, f"pip install --no-index of the wheel into the venv ({r.stderr[-800:]})")

        for argv in ([vcmd, "--version"], [vpy, "-m", "poolshim", "--version"]):
            r = run(argv, env0, cwd=tmp)
            check(r.returncode == 0 and r.stdout.strip() == f"poolshim {a.version}",
                  f"{os.path.basename(argv[0])} {' '.join(argv[1:])}: poolshim {a.version} ({r.stdout.strip()!r})")
        r = run([vcmd, "info", "--pools", "--json"], env0, cwd=tmp)
        own = last_json(r, "poolshim info --pools --json")
        check(own is not None and own[0]["internal_api"] == "poolshim" and not own[0]["merged"]
              and "not loaded" in own[0]["reason"], "poolshim info --pools without the shim says it is not loaded")

        fenv = dict(env0, PYTHONPATH=a.fixture_dir, POOLSHIM_NUM_THREADS="2")
        out = last_json(run([vpy, "-c", CODE], fenv, cwd=tmp), "without the shim")
        if check(out is not None, "without the shim: the probe ran"):
            rows = ext_rows(out["pools"])
            check(not out["pools"][0]["merged"] and "not loaded" in out["pools"][0]["reason"],
                  "without the shim: threadpool_info() says it is not loaded")
            check(sorted(rows) == ["ext_a", "ext_b"] and not any(r["merged"] for r in rows.values())
                  and len({r["pool"] for r in rows.values()}) == 2 and out["ids"][0] != out["ids"][1],
                  f"without the shim: ext_a and ext_b, each its own pool, not merged ({sorted(rows)})")

        penv = dict(env0, PYTHONPATH=a.fixture_dir)
        out = last_json(run([vcmd, "run", "--threads", "2", "--", vpy, "-c", CODE], penv, cwd=tmp), "poolshim run")
        check_one_pool(out, venv, "poolshim run --threads 2", 2)
        out = last_json(run([vpy, "-m", "poolshim", "run", "--threads", "2", "--", vpy, "-c", CODE], penv, cwd=tmp),
                        "python -m poolshim run")
        check_one_pool(out, venv, "python -m poolshim run --threads 2", 2)

        # The command's view of a live process agrees with threadpool_info() inside it.
        p = spawn([vcmd, "run", "--threads", "2", "--", vpy, "-c", CODE, "wait"], penv, cwd=tmp,
                  stdin=subprocess.PIPE, text=True, what="fixture under poolshim run, waiting")
        try:
            require(p.stdout.readline().strip() == "ready", "the waiting probe is ready")
            r = run([vcmd, "info", "--pools", "--json", "--pid", str(p.pid)], env0, cwd=tmp)
            t = run([vcmd, "info", "--pools", "--pid", str(p.pid)], env0, cwd=tmp)
        finally:
            stdout, _ = finish(p, "")
        inside = json.loads(stdout.strip().splitlines()[-1])["pools"]
        outside = last_json(r, "poolshim info --pools --json --pid")
        key = lambda rows: sorted((x["internal_api"], os.path.basename(x["filepath"] or ""), x["merged"], x["pool"] is not None)
                                  for x in rows)
        check(outside is not None and key(outside) == key(inside),
              f"poolshim info --pools --pid lists the pools threadpool_info() lists inside ({key(outside or [])} vs {key(inside)})")
        check(r.returncode == 0 and outside is not None and outside[0]["num_threads"] == 2
              and outside[0]["active_threads"] == inside[0]["active_threads"],
              "and reads its budget and its live workers from outside")
        check(t.returncode == 0 and "ext_a" in t.stdout and "yes" in t.stdout and "one process-wide pool" in t.stdout,
              "poolshim info --pools --pid prints them as a table")
        print(t.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main("wheel", body)
