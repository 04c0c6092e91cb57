#!/usr/bin/env python3
"""A host run as nobody from a build tree that nobody cannot reach (proc_util.AsUser).

A clone in a 0700 folder (/root, a home, a fresh mktemp -d) holds a build tree that user nobody
cannot traverse. This driver makes one: a private folder (mode 0700) with build/bin and build/lib
inside, holding copies of the shim (its real name and the SONAME link, as CMake leaves them), the
legacy host, the host linked against the shim (its RUNPATH pointed at the private build/lib, as a
build there would have it) and module_a.so. Then:
  control   nobody runs the private tree's host under LD_PRELOAD of the private shim: it must
            fail (the tree really is out of reach, so the staged runs below prove something);
  preload   AsUser stages the host, the module and the shim; nobody runs the copies: exit 0,
            status=ok, checksums right, the preload took effect (shim.loaded=1), no ld.so line;
  linked    AsUser stages the linked host: its libpoolshim.so.0 comes along (found through the
            RUNPATH) and the copy's RUNPATH names the staging folder; nobody runs it, no preload:
            healthy, shim.loaded=1;
and checks the staging folder's modes (folders 0755, files 0644 or 0755, all root's) and that it
is gone once the test leaves it. Skipped (77) when not root, without user nobody, setpriv or
patchelf.

usage: nobody_driver.py --shim LIB --host EXE --linked-host EXE --module SO
"""
import argparse
import os
import shutil
import stat
import tempfile

from proc_util import AsUser, abort, check, clean_env, main, require, run, skip

TIMEOUT = 60
PRELOAD_IGNORED = "cannot be preloaded"


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--linked-host", required=True)
    ap.add_argument("--module", required=True)
    return ap.parse_args()


def values(out):
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def healthy(what, r):
    """Exit 0, status=ok, every checksum equal to its expected value; the values."""
    v = values(r.stdout)
    bad = [k for k in v if k.endswith(".checksum") and v[k] != v.get(k[:-9] + ".expected")]
    ok = check(r.returncode == 0 and v.get("status") == "ok" and not bad,
               f"{what}: exit 0, status=ok, checksums right (rc={r.returncode}, wrong: {bad})")
    if not ok:
        print(f"--- stdout ---\n{r.stdout[:2000]}--- stderr ---\n{r.stderr[:2000]}")
    return v


def host_cmd(host, module):
    return [host, "--scenario", "alternating", "--calls", "4", "--items", "16", "--spin-ns", "0",
            module]


def runpath(path):
    r = run(["readelf", "-d", "--wide", path], env=clean_env(runtime=False))
    lines = [l for l in r.stdout.splitlines() if "(RUNPATH)" in l or "(RPATH)" in l]
    return lines[0].split("[", 1)[1].rstrip("]") if lines else ""


def private_tree(args, top):
    """build/bin and build/lib under top (0700), as a build there would leave them."""
    bin_dir, lib_dir = os.path.join(top, "build", "bin"), os.path.join(top, "build", "lib")
    os.makedirs(bin_dir)
    os.makedirs(lib_dir)
    for d in (os.path.dirname(bin_dir), bin_dir, lib_dir):
        os.chmod(d, 0o755)
    shim_real = os.path.join(lib_dir, os.path.basename(os.path.realpath(args.shim)))
    shutil.copy(os.path.realpath(args.shim), shim_real)
    os.symlink(os.path.basename(shim_real), os.path.join(lib_dir, "libpoolshim.so.0"))
    tree = {"shim": shim_real, "module": os.path.join(lib_dir, os.path.basename(args.module)),
            "host": os.path.join(bin_dir, "legacy_host"),
            "linked": os.path.join(bin_dir, "legacy_host_linked")}
    shutil.copy(args.module, tree["module"])
    shutil.copy(args.host, tree["host"])
    shutil.copy(args.linked_host, tree["linked"])
    patchelf = shutil.which("patchelf")
    if patchelf is None:
        skip("no patchelf to give the private tree's linked host its own RUNPATH")
    r = run([patchelf, "--set-rpath", lib_dir, tree["linked"]], env=clean_env(runtime=False))
    if r.returncode != 0:
        abort(f"patchelf --set-rpath on the private linked host: {r.stderr.strip()}")
    return tree


def modes_of(folder):
    """Paths under folder (itself included) whose mode or owner is not what AsUser promises."""
    wrong = []
    for root, dirs, files in os.walk(folder):
        for path in [root] + [os.path.join(root, f) for f in files]:
            st = os.lstat(path)
            mode = stat.S_IMODE(st.st_mode)
            want = (0o755,) if stat.S_ISDIR(st.st_mode) else (0o644, 0o755)
            if mode not in want or st.st_uid != 0:
                wrong.append(f"{path} {mode:o} uid {st.st_uid}")
    return wrong


def cases(args, nobody, tree, top):
    require(not nobody.can(tree["host"], os.R_OK),
            f"nobody cannot reach the private tree ({top}, mode 0700)")
    r = run(nobody.command(host_cmd(tree["host"], tree["module"])),
            clean_env(LD_PRELOAD=tree["shim"]), what="control", timeout=TIMEOUT)
    check(r.returncode != 0 and "status=ok" not in r.stdout,
          f"control: the private tree's host fails as nobody (rc={r.returncode}: "
          f"{(r.stderr.strip().splitlines() or [''])[-1][:200]})")

    host, module = nobody.stage(tree["host"]), nobody.stage(tree["module"])
    shim = nobody.stage(tree["shim"])
    r = run(nobody.command(host_cmd(host, module)), clean_env(LD_PRELOAD=shim), what="preload",
            timeout=TIMEOUT)
    v = healthy("preload: the copies as nobody", r)
    check(v.get("shim.loaded") == "1", f"preload: the shim is loaded (shim.loaded={v.get('shim.loaded')})")
    check(PRELOAD_IGNORED not in r.stderr, f"preload: ld.so did not ignore the preload: {r.stderr[:300]!r}")

    linked = nobody.stage(tree["linked"])
    check(os.path.isfile(os.path.join(nobody.dir, "libpoolshim.so.0")),
          "linked: its libpoolshim.so.0 (found through its RUNPATH) is staged too")
    check(runpath(linked) == nobody.dir, f"linked: the copy's RUNPATH is the staging folder ({runpath(linked)})")
    r = run(nobody.command(host_cmd(linked, module)), clean_env(), what="linked", timeout=TIMEOUT)
    v = healthy("linked: the copy as nobody, no preload", r)
    check(v.get("shim.loaded") == "1" and "linked.budget" in v,
          f"linked: the staged libpoolshim.so.0 is loaded (shim.loaded={v.get('shim.loaded')})")

    wrong = modes_of(nobody.dir)
    check(not wrong, f"the staging folder: folders 0755, files 0644/0755, root's ({wrong})")


def body():
    args = parse_args()
    with AsUser() as nobody:
        top = tempfile.mkdtemp(prefix="poolshim_private_")  # mode 0700, as a home or mktemp -d
        try:
            check(stat.S_IMODE(os.stat(top).st_mode) == 0o700, f"{top} has mode 0700")
            cases(args, nobody, private_tree(args, top), top)
        finally:
            shutil.rmtree(top)
        staged = nobody.dir
    check(not os.path.exists(staged), f"the staging folder {staged} is removed afterwards")


if __name__ == "__main__":
    main("nobody_driver", body)
