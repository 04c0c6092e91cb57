"""The Python wheel (scripts/wheel.sh) as a user meets it: built from this build tree into a
temporary folder, installed with pip (no index) into a fresh venv, then used from there with no
PYTHONPATH to the module and no path to the library.

usage: wheel_driver.py --source-dir DIR --build-dir DIR --version X.Y.Z --python PY --fixture-dir DIR [--hidden]
  the wheel's name, tag, metadata version (CMake's project(VERSION)), contents and console script;
  the tag is manylinux_2_X_<arch> with X the newest GLIBC_2.X that a bundled ELF file needs, read
  here from each file's .gnu.version_r (this driver's own reader, not the objdump that
  scripts/wheel.sh uses), and the files need no library outside manylinux's list;
  `poolshim --version`, `python -m poolshim --version`, `poolshim info`, `poolshim info --pools`
  without the shim, `poolshim audit` of the bundled library and of the wheel itself;
  over the ExecuTorch-style CPython fixture (ext_a, ext_b: a private legacy pool each):
  threadpool_info() without the shim (two pools, not merged), under `poolshim run` and under
  `python -m poolshim run` (the bundled library, one pool, merged), and `poolshim info --pools
  --pid` of that process agreeing with threadpool_info() inside it.
--hidden: the same wheel used in a mount namespace (unshare -m) where libarchive.so.13,
  libpthreadpool.so.0 and libgomp.so.1 are hidden (mount --bind /dev/null over each), as on a
  machine without them: `poolshim --version`, `poolshim info`, `poolshim audit` of a plain ELF
  file and of a live process (--pid) work, `poolshim audit` of the wheel is one line naming
  libarchive13 (exit 2, never a loader error), and under `poolshim run -- python` and `python -m
  poolshim run -- python` the wheel's library is preloaded and its pthreadpool runs (the fixture
  extensions need libpthreadpool, so a ctypes probe). Skipped (77) where unshare or mount is not
  allowed.
Skipped (77) when PY has no venv, ensurepip, pip, setuptools or wheel.
"""
import argparse
import glob
import json
import os
import platform
import shutil
import struct
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


# PEP 600 / auditwheel's manylinux policy: the libraries a manylinux wheel may need from the system.
MANYLINUX_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libgcc_s.so.1",
                  "libstdc++.so.6", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libutil.so.1",
                  "libnsl.so.1", "libcrypt.so.1", "libresolv.so.2", "libX11.so.6", "libGL.so.1"}
SHT_DYNAMIC, SHT_GNU_VERNEED, DT_NEEDED = 6, 0x6FFFFFFE, 1


def elf_needs(data):
    """(DT_NEEDED names, {library: [version names]} from .gnu.version_r) of a 64-bit
    little-endian ELF image, read from its section headers."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def string(section_index, off):
        base = sections[section_index][4] + off
        return data[base:data.index(b"\0", base)].decode()
    needed, versions = [], {}
    for _name, kind, _flags, _addr, offset, size, link, info, _align, _entsize in sections:
        if kind == SHT_DYNAMIC:
            for at in range(offset, offset + size, 16):
                tag, val = struct.unpack_from("<qQ", data, at)
                if tag == DT_NEEDED:
                    needed.append(string(link, val))
        elif kind == SHT_GNU_VERNEED:
            at = offset
            for _ in range(info):  # sh_info: the number of Verneed entries
                _ver, cnt, file_off, aux, nxt = struct.unpack_from("<HHIII", data, at)
                names, a = versions.setdefault(string(link, file_off), []), at + aux
                for _ in range(cnt):
                    _hash, _flags2, _other, name_off, anext = struct.unpack_from("<IHHII", data, a)
                    names.append(string(link, name_off))
                    a += anext
                at += nxt
    return needed, versions


def glibc_minor(versions):
    """The X of the newest GLIBC_2.X among the versions an ELF file needs (GLIBC_2.2.5 is 2)."""
    minors = [int(v.split(".")[1]) for names in versions.values() for v in names
              if v.startswith("GLIBC_2.") and v.split(".")[1].isdigit()]
    return max(minors, default=0)


def check_tag(wheel, a):
    """The wheel's platform tag against its bundled ELF files; returns the tag."""
    with zipfile.ZipFile(wheel) as z:
        elves = {n: z.read(n) for n in z.namelist() if z.read(n)[:4] == b"\x7fELF"}
    check(sorted(elves) == ["poolshim/_bundle/bin/poolshim", "poolshim/_bundle/lib/libpoolshim.so"],
          f"the wheel's ELF files are the library and the command ({sorted(elves)})")
    x = 0
    for name, data in sorted(elves.items()):
        needed, versions = elf_needs(data)
        x = max(x, glibc_minor(versions))
        check(set(needed) <= MANYLINUX_LIBS and "libarchive.so.13" not in needed,
              f"{name} needs only libraries manylinux allows ({needed})")
        check(set(versions) <= MANYLINUX_LIBS, f"{name}'s symbol versions come from those libraries ({sorted(versions)})")
        print(f"note: {name} needs GLIBC_2.{glibc_minor(versions)} at most")
    tag = f"manylinux_2_{x}_{platform.machine()}"
    check(x >= 17, f"a glibc version was read from the files (GLIBC_2.{x})")
    return tag


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


def bundled_library(venv):
    found = glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "poolshim", "_bundle", "lib", "libpoolshim.so"))
    require(len(found) == 1, f"the venv holds the bundled libpoolshim.so ({found})")
    return found[0]


def plain_commands(a, venv, wheel, runner, what, hidden=False):
    """`poolshim info`, `poolshim audit` of the bundled library and of the wheel, through runner."""
    vcmd = os.path.join(venv, "bin", "poolshim")
    lib = bundled_library(venv)
    loader = "error while loading shared libraries"
    r = runner([vcmd, "info"])
    check(r.returncode == 0 and "budget:" in r.stdout and loader not in r.stderr,
          f"{what}: poolshim info works (exit {r.returncode}; {r.stderr.strip()[-300:]!r})")
    r = runner([vcmd, "audit", lib])
    check(r.returncode == 0 and "provider" in r.stdout and "1 file scanned (1 ELF, 0 archives)" in r.stdout,
          f"{what}: poolshim audit of a plain ELF file works (exit {r.returncode}; {r.stderr.strip()[-300:]!r})")
    r = runner([vcmd, "audit", wheel])
    if not hidden:
        check(r.returncode == 0 and "1 archive)" in r.stdout
              and "!poolshim/_bundle/lib/libpoolshim.so" in r.stdout,
              f"{what}: poolshim audit of the wheel reads it with libarchive (exit {r.returncode}; {r.stderr.strip()[-300:]!r})")
        return
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2 and len(lines) == 1 and "libarchive.so.13" in lines[0] and "libarchive13" in lines[0]
          and "cannot read archives" in lines[0] and loader not in r.stderr and "INCOMPLETE" in r.stdout,
          f"{what}: poolshim audit of the wheel is one line naming libarchive13, exit 2 (exit {r.returncode}: {lines})")


# The probe where libpthreadpool and libgomp are hidden (the fixture extensions need
# libpthreadpool, so they cannot load there): the preloaded shim's own pthreadpool runs 1000 items
# of a ctypes callback on a pool of the budget's size.
HIDDEN_CODE = r"""
import ctypes, json, sys, threading
import poolshim
lib = ctypes.CDLL(None)
lib.pthreadpool_create.restype = ctypes.c_void_p
lib.pthreadpool_create.argtypes = [ctypes.c_size_t]
lib.pthreadpool_get_threads_count.argtypes = [ctypes.c_void_p]
TASK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t)
lib.pthreadpool_parallelize_1d.argtypes = [ctypes.c_void_p, TASK, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint32]
seen, lock = [0] * 1000, threading.Lock()
def task(_ctx, i):
    with lock:
        seen[i] += 1
cb = TASK(task)
pool = lib.pthreadpool_create(0)
lib.pthreadpool_parallelize_1d(pool, cb, None, 1000, 0)
out = {"pools": poolshim.threadpool_info(), "module": poolshim.__file__, "threads": lib.pthreadpool_get_threads_count(pool),
       "each_once": seen == [1] * 1000}
if sys.argv[1:] == ["wait"]:
    print("ready", flush=True); sys.stdin.read()
print(json.dumps(out))
"""

# Inside `unshare -m`: mount /dev/null over each path before `--`, then exec the command after it.
HIDE = 'while [ "$1" != -- ]; do mount --bind /dev/null "$1" || exit 97; shift; done; shift; exec "$@"'
HIDDEN_SONAMES = ("libarchive.so.13", "libpthreadpool.so.0", "libgomp.so.1")


def hidden_paths():
    """The files to hide: every path under which the dynamic linker finds the sonames."""
    dirs = [f"/usr/lib/{platform.machine()}-linux-gnu", f"/lib/{platform.machine()}-linux-gnu", "/usr/lib", "/lib",
            "/usr/lib64", "/lib64"]
    paths = []
    for soname in HIDDEN_SONAMES:
        for d in dirs:
            p = os.path.realpath(os.path.join(d, soname))
            if os.path.isfile(p) and p not in paths:
                paths.append(p)
    return paths


def require_unshare(env0):
    unshare = shutil.which("unshare")
    if unshare is None:
        skip("no unshare (util-linux) to hide libraries in a mount namespace")
    r = run([unshare, "-m", "sh", "-c", HIDE, "sh", "--", "true"], env0)
    if r.returncode != 0:
        skip(f"unshare -m is not allowed here (exit {r.returncode}: {r.stderr.strip()[-200:]})")
    probe = tempfile.NamedTemporaryFile(prefix="poolshim_hide_")
    r = run([unshare, "-m", "sh", "-c", HIDE, "sh", probe.name, "--", "true"], env0)
    probe.close()
    if r.returncode != 0:
        skip(f"mount --bind is not allowed in a mount namespace here (exit {r.returncode}: {r.stderr.strip()[-200:]})")
    return unshare


def hidden_checks(a, tmp, venv, wheel, env0):
    unshare = require_unshare(env0)
    paths = hidden_paths()
    print(f"note: hiding {paths}")
    vpy, vcmd = os.path.join(venv, "bin", "python"), os.path.join(venv, "bin", "poolshim")

    def inside(argv):
        return [unshare, "-m", "sh", "-c", HIDE, "sh"] + paths + ["--"] + list(argv)

    def runner(argv, env=env0):
        return run(inside(argv), env, cwd=tmp)

    r = runner([vpy, "-c", "import ctypes, sys\nfor n in sys.argv[1:]:\n    try:\n        ctypes.CDLL(n); print('loaded', n)\n"
                "    except OSError:\n        print('hidden', n)"] + list(HIDDEN_SONAMES))
    require(r.returncode == 0 and r.stdout.split() == [w for n in HIDDEN_SONAMES for w in ("hidden", n)],
            f"inside the namespace {', '.join(HIDDEN_SONAMES)} cannot be loaded ({r.stdout.strip()!r} {r.stderr.strip()[-300:]!r})")
    r = runner([vcmd, "--version"])
    check(r.returncode == 0 and r.stdout.strip() == f"poolshim {a.version}", f"hidden: poolshim --version ({r.stdout.strip()!r})")
    plain_commands(a, venv, wheel, runner, "hidden", hidden=True)

    for argv, what in (([vcmd, "run", "--threads", "2", "--"], "poolshim run"),
                       ([vpy, "-m", "poolshim", "run", "--threads", "2", "--"], "python -m poolshim run")):
        out = last_json(runner(argv + [vpy, "-c", HIDDEN_CODE]), f"hidden: {what}")
        if not check(out is not None, f"hidden: {what} --threads 2 -- python: the probe ran"):
            continue
        shim = out["pools"][0]
        check(os.path.realpath(out["module"]).startswith(os.path.realpath(venv)) and shim["merged"]
              and (shim["filepath"] or "").endswith("poolshim/_bundle/lib/libpoolshim.so") and shim["budget"] == 2,
              f"hidden: {what}: the wheel's library is preloaded, budget 2 ({shim['filepath']}, {shim['budget']})")
        check(out["threads"] == 2 and out["each_once"],
              f"hidden: {what}: its pthreadpool runs every item once on 2 threads ({out['threads']}, {out['each_once']})")

    p = spawn(inside([vcmd, "run", "--threads", "2", "--", vpy, "-c", HIDDEN_CODE, "wait"]), env0, cwd=tmp,
              stdin=subprocess.PIPE, text=True, what="hidden: probe under poolshim run, waiting")
    try:
        require(p.stdout.readline().strip() == "ready", "hidden: the waiting probe is ready")
        r = runner([vcmd, "audit", "--pid", str(p.pid)])
    finally:
        finish(p, "")
    check(r.returncode == 0 and "provider" in r.stdout and "libpoolshim.so" in r.stdout
          and "libpoolshim is NOT loaded" not in r.stdout,
          f"hidden: poolshim audit --pid of that process works (exit {r.returncode}; {r.stderr.strip()[-300:]!r})")
    print(r.stdout)


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--fixture-dir", required=True)
    ap.add_argument("--hidden", action="store_true")
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
    if a.hidden:
        require_unshare(env0)  # skip before building anything

    tmp = tempfile.mkdtemp(prefix="poolshim_wheel_")
    try:
        dist = os.path.join(tmp, "dist")
        r = run([os.path.join(a.source_dir, "scripts", "wheel.sh"), "--build-dir", a.build_dir, "--out", dist,
                 "--no-build"], dict(env0, PYTHON=a.python), timeout=180)
        require(r.returncode == 0, f"scripts/wheel.sh --no-build builds the wheel (exit {r.returncode}: {r.stderr[-1500:]})")
        wheel = r.stdout.strip().splitlines()[-1]
        plat = check_tag(wheel, a)
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

        if a.hidden:
            hidden_checks(a, tmp, venv, wheel, env0)
            return
        for argv in ([vcmd, "--version"], [vpy, "-m", "poolshim", "--version"]):
            r = run(argv, env0, cwd=tmp)
            check(r.returncode == 0 and r.stdout.strip() == f"poolshim {a.version}",
                  f"{os.path.basename(argv[0])} {' '.join(argv[1:])}: poolshim {a.version} ({r.stdout.strip()!r})")
        r = run([vcmd, "info", "--pools", "--json"], env0, cwd=tmp)
        own = last_json(r, "poolshim info --pools --json")
        check(own is not None and own[0]["internal_api"] == "poolshim" and not own[0]["merged"]
              and "not loaded" in own[0]["reason"], "poolshim info --pools without the shim says it is not loaded")

        plain_commands(a, venv, wheel, lambda argv: run(argv, env0, cwd=tmp), "libraries present")

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
