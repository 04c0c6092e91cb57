"""Packaging, as a user meets it: install into a temporary prefix and build a consumer with CMake's
find_package(poolshim) or with pkg-config; build the .deb with cpack, unpack it into a scratch root
with dpkg-deb -x and use the command, the library and the Python module from there.

usage: package_driver.py CHECK --build-dir DIR --source-dir DIR --cmake CMAKE [--cpack CPACK]
CHECK: cmake-consumer | pkgconfig-consumer | deb
"""
import argparse
import glob
import json
import os
import re
import shutil
import sys
import tempfile

import proc_util
from proc_util import check, clean_env, main, skip


def run(argv, env=None, cwd=None, timeout=300):
    """proc_util.run, showing the output of a command that fails."""
    r = proc_util.run(argv, env, timeout=timeout, cwd=cwd)
    if r.returncode != 0:
        sys.stdout.write(f"$ {' '.join(argv)}\n{r.stdout[-3000:]}{r.stderr[-3000:]}\n")
    return r


def project_version(source_dir):
    text = open(os.path.join(source_dir, "CMakeLists.txt")).read()
    return re.search(r"project\(poolshim VERSION ([0-9.]+)", text).group(1)


def install(a, prefix):
    r = run([a.cmake, "--install", a.build_dir, "--prefix", prefix])
    check(r.returncode == 0, f"cmake --install into {prefix}")
    return r.returncode == 0


def consumer_output_ok(out, version, what):
    fields = dict(kv.split("=", 1) for kv in out.split())
    check(fields.get("sum") == str(999 * 1000 // 2), f"{what}: the loop ran every index once on the pool")
    check(fields.get("header") == version, f"{what}: the installed header says version {version}")
    check(fields.get("library") == ".".join(version.split(".")[:2]), f"{what}: the library reports {version}")
    check(fields.get("info_rc") == "0" and int(fields.get("granted", "0")) >= 1, f"{what}: info and the grant work")


def cmd_cmake_consumer(a):
    version = project_version(a.source_dir)
    tmp = tempfile.mkdtemp(prefix="poolshim_cmake_consumer_")
    try:
        prefix = os.path.join(tmp, "prefix")
        if not install(a, prefix):
            return
        configs = glob.glob(os.path.join(prefix, "**", "poolshimConfig.cmake"), recursive=True)
        check(len(configs) == 1 and glob.glob(os.path.join(os.path.dirname(configs[0]), "poolshimConfigVersion.cmake")),
              "poolshimConfig.cmake and poolshimConfigVersion.cmake are installed together")
        build = os.path.join(tmp, "build")
        src = os.path.join(a.source_dir, "tests", "package", "consumer")
        r = run([a.cmake, "-S", src, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}"])
        check(r.returncode == 0, "a consumer project configures with find_package(poolshim 0.2 REQUIRED)")
        r = run([a.cmake, "--build", build])
        check(r.returncode == 0, "the consumer builds against poolshim::poolshim")
        facts = dict(l.split("=", 1) for l in open(os.path.join(build, "package_facts.txt")).read().splitlines())
        check(facts.get("version") == version, f"the package's version is {version} ({facts.get('version')})")
        check(facts.get("command", "").startswith(prefix) and os.access(facts["command"], os.X_OK),
              "poolshim_COMMAND is the installed command")
        r = run([os.path.join(build, "consumer")])
        check(r.returncode == 0, "the consumer runs")
        consumer_output_ok(r.stdout, version, "cmake consumer")
        r = run([facts.get("command", "false"), "--version"])
        check(r.stdout.strip() == f"poolshim {version}", "the installed command reports the same version")
        r = run([facts.get("command", "false"), "run", "--", "env"])
        check(f"LD_PRELOAD={os.path.realpath(facts.get('library', ''))}" in r.stdout,
              "the installed command preloads the installed library")
        # The Python module from the install tree finds the installed library by itself.
        pyenv = clean_env(PYTHONPATH=os.path.join(prefix, "lib", "python3", "dist-packages"))
        r = run([a.python, "-m", "poolshim", "run", "--", a.python, "-c",
                 "import poolshim, json; print(json.dumps(poolshim.info()))"], env=pyenv)
        info = json.loads(r.stdout) if r.returncode == 0 else {}
        check(info.get("loaded") is True and os.path.realpath(info.get("library", "")) == os.path.realpath(facts.get("library", "")),
              "python -m poolshim run from the install tree preloads the installed library")
        # The version file refuses a version it does not provide.
        bad = os.path.join(tmp, "bad")
        os.makedirs(bad)
        open(os.path.join(bad, "CMakeLists.txt"), "w").write(
            "cmake_minimum_required(VERSION 3.18)\nproject(bad NONE)\nfind_package(poolshim 99.0 REQUIRED)\n")
        r = proc_util.run([a.cmake, "-S", bad, "-B", os.path.join(bad, "b"), f"-DCMAKE_PREFIX_PATH={prefix}"],
                          timeout=300)
        check(r.returncode != 0 and "99.0" in r.stderr, "find_package(poolshim 99.0) fails: the version file is honoured")
    finally:
        shutil.rmtree(tmp)


def cmd_pkgconfig_consumer(a):
    version = project_version(a.source_dir)
    if shutil.which("pkg-config") is None or shutil.which("cc") is None:
        skip("pkg-config or cc missing")
    tmp = tempfile.mkdtemp(prefix="poolshim_pc_consumer_")
    try:
        prefix = os.path.join(tmp, "prefix")
        if not install(a, prefix):
            return
        pcs = glob.glob(os.path.join(prefix, "**", "pkgconfig", "poolshim.pc"), recursive=True)
        check(len(pcs) == 1, "poolshim.pc is installed")
        if not pcs:
            return
        env = clean_env(PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
        r = run(["pkg-config", "--modversion", "poolshim"], env=env)
        check(r.stdout.strip() == version, f"pkg-config --modversion poolshim says {version}")
        r = run(["pkg-config", "--cflags", "--libs", "poolshim"], env=env)
        flags = r.stdout.split()
        check(r.returncode == 0 and any(f.startswith("-I") and f.endswith("/include") for f in flags),
              "pkg-config gives the include folder")
        libdir = run(["pkg-config", "--variable=libdir", "poolshim"], env=env).stdout.strip()
        check(os.path.realpath(libdir).startswith(os.path.realpath(prefix)), "the .pc file points into the prefix it was installed to")
        exe = os.path.join(tmp, "consumer")
        src = os.path.join(a.source_dir, "tests", "package", "consumer", "consumer.c")
        r = run(["cc", src, "-o", exe] + flags + [f"-Wl,-rpath,{libdir}"])
        check(r.returncode == 0, "the consumer builds with `pkg-config --cflags --libs poolshim`")
        r = run([exe])
        check(r.returncode == 0, "the pkg-config consumer runs")
        consumer_output_ok(r.stdout, version, "pkg-config consumer")
    finally:
        shutil.rmtree(tmp)


def cmd_deb(a):
    version = project_version(a.source_dir)
    if shutil.which("dpkg-deb") is None:
        skip("dpkg-deb missing")
    tmp = tempfile.mkdtemp(prefix="poolshim_deb_")
    try:
        out = os.path.join(tmp, "out")
        r = run([a.cpack, "-G", "DEB", "-B", out, "--config", os.path.join(a.build_dir, "CPackConfig.cmake")], timeout=600)
        debs = glob.glob(os.path.join(out, "*.deb"))
        check(r.returncode == 0 and len(debs) == 1, "cpack -G DEB builds one .deb")
        if not debs:
            return
        deb = debs[0]
        fields = run(["dpkg-deb", "-f", deb, "Package", "Version", "Depends"]).stdout
        check(f"Version: {version}" in fields, f"the package's version is {version}")
        check("libpthreadpool0" in fields and "libarchive" in fields, "Depends names the engine and the command's libraries")
        root = os.path.join(tmp, "root")
        check(run(["dpkg-deb", "-x", deb, root]).returncode == 0, "dpkg-deb -x unpacks it into a scratch root")
        arch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip() or "x86_64-linux-gnu"
        usr = os.path.join(root, "usr")
        expect = [f"lib/{arch}/libpoolshim.so.0", f"lib/{arch}/libpoolshim.so", "include/poolshim/poolshim.h",
                  "include/poolshim/version.h", f"lib/{arch}/cmake/poolshim/poolshimConfig.cmake",
                  f"lib/{arch}/cmake/poolshim/poolshimConfigVersion.cmake", f"lib/{arch}/pkgconfig/poolshim.pc",
                  "bin/poolshim", "share/man/man1/poolshim.1", "share/doc/poolshim/LICENSE",
                  "lib/python3/dist-packages/poolshim/__init__.py", "lib/python3/dist-packages/poolshim/_build.py"]
        for rel in expect:
            check(os.path.exists(os.path.join(usr, rel)), f"the .deb holds /usr/{rel}")
        listing = run(["dpkg-deb", "-c", deb]).stdout
        check("/test" not in listing and "fixture" not in listing and "bench" not in listing,
              "no test fixtures or benchmarks in the package")
        cmd = os.path.join(usr, "bin", "poolshim")
        r = run([cmd, "--version"])
        check(r.returncode == 0 and r.stdout.strip() == f"poolshim {version}", "the unpacked command runs and reports the version")
        lib = os.path.realpath(os.path.join(usr, "lib", arch, "libpoolshim.so"))
        r = run([cmd, "info"])
        check(r.returncode == 0 and f"library: {lib}" in r.stdout, "the unpacked command finds the unpacked library (multiarch dir)")
        r = run([cmd, "run", "--threads", "1", "--", a.python, "-c",
                 "import os; print(os.environ['LD_PRELOAD']); print(open('/proc/self/maps').read().count('libpoolshim'))"])
        lines = r.stdout.split()
        check(r.returncode == 0 and lines[:1] == [lib] and int(lines[1]) > 0,
              "`poolshim run` from the scratch root preloads its own library into the command")
        if shutil.which("man"):
            r = run(["man", "-l", os.path.join(usr, "share/man/man1/poolshim.1")],
                    env=clean_env(MANPAGER="cat", PAGER="cat", MANWIDTH="80"))
            check(r.returncode == 0 and "EXIT STATUS" in r.stdout, "the man page renders")
        pyenv = clean_env(PYTHONPATH=os.path.join(usr, "lib/python3/dist-packages"))
        r = run([a.python, "-m", "poolshim", "run", "--threads", "1", "--", a.python, "-c",
                 "import poolshim, json; print(json.dumps(poolshim.info()))"], env=pyenv)
        info = json.loads(r.stdout) if r.returncode == 0 else {}
        check(info.get("loaded") is True and os.path.realpath(info.get("library", "")) == lib,
              "python -m poolshim run from the unpacked module preloads the unpacked library")
        check(info.get("module_version") == version and info.get("budget") == 1,
              "the unpacked module reports the version and the budget it set")
    finally:
        shutil.rmtree(tmp)


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--cmake", required=True)
    ap.add_argument("--cpack")
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    {"cmake-consumer": cmd_cmake_consumer, "pkgconfig-consumer": cmd_pkgconfig_consumer, "deb": cmd_deb}[a.check](a)


if __name__ == "__main__":
    main("package_driver " + " ".join(sys.argv[1:2]), body)
