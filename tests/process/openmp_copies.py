"""Copies of libgomp's ABI that the preload can or cannot reach (issue 18, point 3), built at test
time from tests/fixtures/openmp/copies/ with the C compiler, Debian's libgomp and patchelf:

  libgomp-0a1b2c3d.so.1  a copy of libgomp.so.1 renamed as pip wheels vendor it (patchelf
                         --set-soname), and renamed_client.so, an -fopenmp module linked to it
                         (DT_NEEDED libgomp-0a1b2c3d.so.1). The dynamic linker matches versioned
                         references (GOMP_parallel@GOMP_4.0) by version name, not by file, so the
                         client's calls reach the preloaded shim all the same: a client, and the
                         copy an unused one (it only serves other modules);
  own_exported.so        a module with its own runtime (own_runtime.c: GOMP_parallel runs a team
                         of 1) exported and called through the PLT: redirected, its regions get
                         libgomp's team under the preload;
  own_hidden.so          the same runtime built -fvisibility=hidden: unreachable (hidden copy),
                         a team of 1 in every mode;
  own_symbolic.so        the same runtime linked -Wl,-Bsymbolic: unreachable (linked -Bsymbolic);
  own_kmpc.so            a module with LLVM's entry __kmpc_fork_call linked in and hidden (as
                         clang's -static-openmp links libomp.a; own_kmpc.c): unreachable (hidden
                         copy), a team of 1 in every mode;
  host_static            the host with Debian's libgomp.a linked in (when it exists): unreachable
                         (defined in the main executable), its own region keeps libgomp's team.
  libgomp.a in a module  tried, and reported: Debian's libgomp.a uses local-exec TLS, which a
                         shared object cannot hold, so no module can link it statically.

Checks: `poolshim audit` (table and --json, and --pid of the host running them) names each unreachable copy with its reason, the
renamed copy as such; the hosts print the same team sizes without the shim, preloaded and with
POOLSHIM_OPENMP=shim, except own_exported.so (its runtime, or libgomp's through the shim); the
shim's log (POOLSHIM_LOG=info) names each copy with the reason, as it does for pthreadpool.
Skipped without a C compiler with -fopenmp; the renamed copy needs patchelf, the static host
libgomp.a (each missing one is said, and its checks left out)."""
import argparse
import json
import os
import shutil
import subprocess
import tempfile

import proc_util as pu

RENAMED = "libgomp-0a1b2c3d.so.1"


def sh(argv, what):
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        return r.stderr.strip() or f"exit {r.returncode}"
    return None


def build(a, tmp):
    """The fixtures; returns (modules, hosts, notes)."""
    src = a.fixtures
    cc = a.cc
    obj = lambda n: os.path.join(tmp, n)  # noqa: E731
    err = sh([cc, "-fopenmp", "-fPIC", "-c", os.path.join(src, "copy_module.c"), "-o", obj("cm.o")],
             "copy_module.o")
    if err:
        pu.skip(f"no OpenMP C compiler: {err}")
    for name, flags in (("own.o", []), ("own_h.o", ["-fvisibility=hidden"])):
        pu.require(sh([cc, "-fPIC", *flags, "-c", os.path.join(src, "own_runtime.c"), "-o", obj(name)],
                      name) is None, f"compile own_runtime.c ({name})")
    modules = {}
    for name, objs, flags in (("own_exported.so", ["own.o"], []),
                              ("own_hidden.so", ["own_h.o"], []),
                              ("own_symbolic.so", ["own.o"], ["-Wl,-Bsymbolic"])):
        e = sh([cc, "-shared", *flags, obj("cm.o"), *[obj(o) for o in objs], "-o", obj(name)], name)
        pu.require(e is None, f"link {name} ({e})")
        modules[name] = obj(name)
    e = sh([cc, "-shared", "-fPIC", os.path.join(src, "own_kmpc.c"), "-o", obj("own_kmpc.so")],
           "own_kmpc.so")
    pu.require(e is None, f"build own_kmpc.so ({e})")
    modules["own_kmpc.so"] = obj("own_kmpc.so")
    notes = []
    gomp = subprocess.run([cc, "-print-file-name=libgomp.so.1"], capture_output=True,
                          text=True).stdout.strip()
    patchelf = shutil.which("patchelf")
    if patchelf and os.path.isabs(gomp) and os.path.exists(gomp):
        shutil.copy(os.path.realpath(gomp), obj(RENAMED))
        pu.require(sh([patchelf, "--set-soname", RENAMED, obj(RENAMED)], "patchelf") is None,
                   "patchelf --set-soname on the copy of libgomp.so.1")
        e = sh([cc, "-shared", obj("cm.o"), "-L" + tmp, "-l:" + RENAMED, "-Wl,-rpath,$ORIGIN",
                "-o", obj("renamed_client.so")], "renamed_client.so")
        pu.require(e is None, f"link renamed_client.so against {RENAMED} ({e})")
        modules["renamed_client.so"] = obj("renamed_client.so")
    else:
        notes.append("no patchelf or no libgomp.so.1: the renamed copy is left out")
    hosts = {}
    pu.require(sh([cc, "-fopenmp", os.path.join(src, "copy_host.c"), "-o", obj("host_dyn"), "-ldl"],
                  "host_dyn") is None, "build host_dyn")
    hosts["host_dyn"] = obj("host_dyn")
    gomp_a = subprocess.run([cc, "-print-file-name=libgomp.a"], capture_output=True,
                            text=True).stdout.strip()
    if os.path.isabs(gomp_a) and os.path.exists(gomp_a):
        pu.require(sh([cc, "-fopenmp", "-c", os.path.join(src, "copy_host.c"), "-o", obj("host.o")],
                      "host.o") is None, "compile copy_host.c")
        e = sh([cc, obj("host.o"), gomp_a, "-lpthread", "-ldl", "-o", obj("host_static")],
               "host_static")
        pu.require(e is None, f"link host_static with {gomp_a} ({e})")
        hosts["host_static"] = obj("host_static")
        # A module with libgomp.a in it: Debian's archive is not position-independent enough.
        e = sh([cc, "-shared", obj("cm.o"), gomp_a, "-lpthread", "-o", obj("static_module.so")],
               "static_module.so")
        if e is None:
            modules["static_module.so"] = obj("static_module.so")
        else:
            notes.append("libgomp.a cannot go into a shared object here: " + e.splitlines()[0])
    else:
        notes.append("no libgomp.a: the static host is left out")
    return modules, hosts, notes


def check_audit(a, tmp, modules, hosts):
    files = list(modules.values()) + list(hosts.values())
    if "renamed_client.so" in modules:
        files.append(os.path.join(tmp, RENAMED))
    r = pu.run([a.poolshim, "audit", "--json"] + files, what="poolshim audit --json")
    pu.require(r.returncode in (0, 1), f"audit --json runs (rc={r.returncode}, {r.stderr[-300:]!r})")
    doc = json.loads(r.stdout)
    by = {os.path.basename(m["path"]): m for m in doc["modules"]}
    expect = {"own_hidden.so": ("unreachable", "hidden copy"),
              "own_kmpc.so": ("unreachable", "hidden copy"),
              "own_symbolic.so": ("unreachable", "linked -Bsymbolic"),
              "own_exported.so": ("redirected", ""),
              "host_static": ("unreachable", "defined in the main executable"),
              "renamed_client.so": ("absent", ""),
              "host_dyn": ("absent", ""),
              RENAMED: ("redirected", "")}
    for name, (verdict, reason) in expect.items():
        if name not in by:
            pu.check(name not in modules and name not in hosts and
                     not (name == RENAMED and "renamed_client.so" in modules),
                     f"audit lists {name}")
            continue
        o = by[name]["openmp"]
        pu.check(o["verdict"] == verdict and o["reason"] == reason,
                 f"audit: {name}: openmp {verdict} ({reason or 'no reason'}); got {o['verdict']} "
                 f"({o['reason']})")
        for other in ("executorch", "pthreadpool"):
            pu.check(by[name][other]["verdict"] == "absent", f"audit: {name}: no {other} copy")
    pu.check(by["own_kmpc.so"]["openmp"]["symbol"] == "__kmpc_fork_call",
             f"audit: own_kmpc.so's copy is LLVM's __kmpc_fork_call ({by['own_kmpc.so']['openmp']})")
    for name in ("renamed_client.so", "host_dyn"):
        if name in by:
            o = by[name]["openmp"]
            pu.check(o["client"] and "reach the shim" in o["client_calls"],
                     f"audit: {name} is an OpenMP client whose calls reach the shim ({o})")
    if RENAMED in by:
        o, rt = by[RENAMED]["openmp"], by[RENAMED]["runtime"]
        pu.check(o["unused_copy"] and by[RENAMED]["row"] == "unused copy",
                 f"audit: {RENAMED} is an unused copy: it only serves other modules ({o})")
        pu.check(rt is not None and rt["name"] == "OpenMP (GNU libgomp)" and
                 "renamed copy of libgomp" in rt["note"],
                 f"audit: {RENAMED} is named as a renamed libgomp ({rt})")
    pu.check(doc["exit_status"] == 1 and r.returncode == 1,
             f"audit exits 1: some copy is unreachable (rc={r.returncode})")
    t = pu.run([a.poolshim, "audit"] + files, what="poolshim audit")
    print(t.stdout)
    pu.check("OPENMP" in t.stdout.splitlines()[0], "the table has an OPENMP column")
    for name, (verdict, reason) in expect.items():
        if verdict != "unreachable" or name not in by:
            continue
        pu.check(f"unreachable: openmp: {reason}" in t.stdout,
                 f"the table names {name}'s reason ({reason})")
    if "static_module.so" in modules:
        pu.check(by["static_module.so"]["openmp"]["verdict"] != "absent",
                 "audit: the module with libgomp.a linked in carries an OpenMP copy")


def teams(out):
    return dict(line.split(" team=") for line in out.strip().splitlines() if " team=" in line)


def check_runs(a, modules, hosts):
    args = [modules[n] for n in sorted(modules)]
    modes = [("without the shim", {}),
             ("POOLSHIM_OPENMP=forward", {"LD_PRELOAD": a.shim, "POOLSHIM_OPENMP": "forward"}),
             ("preloaded (native, the default)", {"LD_PRELOAD": a.shim})]
    for host, path in sorted(hosts.items()):
        for mode, env in modes:
            r = pu.run([path] + args, pu.clean_env(OMP_NUM_THREADS="2", **env), what=f"{host} {mode}",
                       log="info" if env else None, timeout=a.timeout)
            what = f"{host}, {mode}"
            pu.require(r.returncode == 0, f"{what}: exit 0 (rc={r.returncode}, {r.stderr[-300:]!r})")
            got = teams(r.stdout)
            print(f"{what}: {got}")
            pu.check(got.get("own_hidden.so") == "1" and got.get("own_symbolic.so") == "1" and
                     got.get("own_kmpc.so") == "1",
                     f"{what}: the hidden, -Bsymbolic and __kmpc modules keep their own runtime "
                     "(team 1)")
            pu.check(got.get("host") == "2", f"{what}: the host's own region has 2 threads")
            if "renamed_client.so" in got:
                pu.check(got["renamed_client.so"] == "2",
                         f"{what}: the renamed copy's client runs a team of 2")
            own = "1" if host == "host_static" and not env else "2"
            pu.check(got.get("own_exported.so") == own,
                     f"{what}: own_exported.so's calls go to {'its own runtime' if own == '1' else 'libgomp'}"
                     f" (team {own})")
            if not env:
                continue
            log = r.log
            for name, text in (("own_hidden.so", "openmp unreachable (hidden copy)"),
                               ("own_kmpc.so", "openmp unreachable (hidden copy)"),
                               ("own_symbolic.so", "openmp unreachable (linked -Bsymbolic)"),
                               ("own_exported.so", "openmp redirected")):
                pu.check(any(name in line and text in line for line in log.splitlines()),
                         f"{what}: the log names {name}: {text}")
            if host == "host_static":
                pu.check(any(line.endswith(f"{path}: openmp unreachable (defined in the main "
                                           "executable)") for line in log.splitlines()),
                         f"{what}: the log names the executable's static libgomp")
            if "renamed_client.so" in modules:
                pu.check(any(RENAMED in line and "renamed copy" in line and "OMP_NUM_THREADS" in line
                             for line in log.splitlines()),
                         f"{what}: the log names the renamed libgomp as such")


def check_pid(a, modules, hosts):
    """audit --pid of the host running under the preload: the same verdicts, seen in a process."""
    host = hosts.get("host_static", hosts["host_dyn"])
    env = pu.clean_env(LD_PRELOAD=a.shim, OMP_NUM_THREADS="2", COPY_HOST_WAIT="1")
    p = pu.spawn([host] + [modules[n] for n in sorted(modules)], env, what="copy host (--pid)",
                 timeout=a.timeout, stdin=subprocess.PIPE, text=True)
    while True:
        line = p.stdout.readline()
        if not line or line.strip() == "ready":
            break
    r = pu.run([a.poolshim, "audit", "--json", "--pid", str(p.pid)], what="audit --json --pid")
    pu.finish(p, "\n")
    pu.require(r.returncode in (0, 1), f"audit --pid runs (rc={r.returncode}, {r.stderr[-300:]!r})")
    doc = json.loads(r.stdout)
    by = {os.path.basename(m["path"]): m for m in doc["modules"]}
    pu.check(doc["process"]["shim_loaded"], "audit --pid: libpoolshim is loaded in the host")
    for name, (verdict, reason) in {"own_hidden.so": ("unreachable", "hidden copy"),
                                    "own_kmpc.so": ("unreachable", "hidden copy"),
                                    "own_symbolic.so": ("unreachable", "linked -Bsymbolic"),
                                    "own_exported.so": ("redirected", "")}.items():
        o = by.get(name, {}).get("openmp", {})
        pu.check(o.get("verdict") == verdict and o.get("reason") == reason,
                 f"audit --pid: {name}: openmp {verdict} ({reason or 'no reason'}); got {o}")
    base = os.path.basename(host)
    if base == "host_static":
        o = by.get(base, {}).get("openmp", {})
        pu.check(o.get("verdict") == "unreachable" and o.get("reason") == "defined in the main executable",
                 f"audit --pid: the host's static libgomp is unreachable ({o})")
    if "renamed_client.so" in modules:
        o = by.get("renamed_client.so", {}).get("openmp", {})
        pu.check(o.get("client") and "in this process" in o.get("client_calls", ""),
                 f"audit --pid: renamed_client.so's calls reach the shim in this process ({o})")
    pu.check(doc["exit_status"] == 1, "audit --pid exits 1: some copy is unreachable")


def body(a):
    with tempfile.TemporaryDirectory(prefix="poolshim_omp_copies_") as tmp:
        modules, hosts, notes = build(a, tmp)
        for n in notes:
            print(f"note: {n}")
        check_audit(a, tmp, modules, hosts)
        check_runs(a, modules, hosts)
        check_pid(a, modules, hosts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--poolshim", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    pu.main("openmp.copies", lambda: body(a))


if __name__ == "__main__":
    main()
