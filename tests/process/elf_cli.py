"""The `poolshim` command's behaviour: exit statuses, environment handling, error messages.

usage: elf_cli.py CHECK --poolshim BIN --shim LIB [--probe PROBE] [--module SO] [--python PY]
                  [--python-dir DIR] [--python-probe SCRIPT]

CHECK: run-usage | run-env | run-preload | run-python | audit-usage | audit-inputs | info
Each spawned process gets an environment built from scratch (no inherited POOLSHIM_* or
LD_PRELOAD). Exit 0 when every check passes.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time

from proc_util import check, clean_env, main, preload_value, run, spawn, stop


def cmd_run_usage(a):
    p = a.poolshim
    r = run([p])
    check(r.returncode == 2 and "usage" in r.stderr, "no command: usage on stderr, exit 2")
    check(run([p, "frobnicate"]).returncode == 2, "unknown command: exit 2")
    r = run([p, "--help"])
    check(r.returncode == 0 and "audit" in r.stdout and "run" in r.stdout, "--help lists the commands, exit 0")
    r = run([p, "--version"])
    check(r.returncode == 0 and re.fullmatch(r"poolshim \d+\.\d+\.\d+\n", r.stdout) is not None, "--version prints one version")
    check("--version" in run([p, "--help"]).stdout, "--help documents --version")
    r = run([p, "run", "--help"])
    check(r.returncode == 0 and "exit status" in r.stdout, "run --help documents the exit statuses")
    r = run([p, "help", "audit"])
    check(r.returncode == 0 and "exit status" in r.stdout, "help audit shows audit's help")
    check(run([p, "run"]).returncode == 2, "run without a command: exit 2")
    check(run([p, "run", "--"]).returncode == 2, "run -- without a command: exit 2")
    for bad in (["--threads", "0"], ["--threads", "abc"], ["--threads", "99999"], ["--log", "loud"],
                ["--bogus"], ["--library", "/nonexistent/libpoolshim.so"]):
        r = run([p, "run"] + bad + ["--", "true"])
        check(r.returncode == 2 and r.stderr.startswith("poolshim run:"), f"run {' '.join(bad)}: exit 2 with a message")
    r = run([p, "run", "--", "/nonexistent/command"])
    check(r.returncode == 127 and "cannot execute" in r.stderr, "run of a missing command: exit 127")
    r = run([p, "run", "--", "sh", "-c", "exit 7"])
    check(r.returncode == 7, "run passes the command's exit status through")


def env_of(stdout):
    return dict(line.split("=", 1) for line in stdout.splitlines() if "=" in line)


def cmd_run_env(a):
    p, shim = a.poolshim, os.path.realpath(a.shim)
    other = "/nonexistent/libother.so"
    # What the child inherits after the shim: in a sanitizer build clean_env also preloads the
    # sanitizer runtime (proc_util.preload_value), and `run` must keep it.
    def after_shim(*old):
        kept = preload_value(*old)
        return shim + (":" + kept if kept else "")
    r = run([p, "run", "--threads", "3", "--log", "warn", "--", "env"], env=clean_env(LD_PRELOAD=other))
    e = env_of(r.stdout)
    check(r.returncode == 0, "run -- env works")
    check(e.get("LD_PRELOAD") == after_shim(other), f"the shim comes first, the old LD_PRELOAD is kept ({e.get('LD_PRELOAD')})")
    check(e.get("POOLSHIM_NUM_THREADS") == "3", "--threads sets POOLSHIM_NUM_THREADS")
    check(e.get("POOLSHIM_LOG") == "warn", "--log sets POOLSHIM_LOG")
    check(e.get("OMP_NUM_THREADS") == "3" and e.get("OPENBLAS_NUM_THREADS") == "3" and e.get("MKL_NUM_THREADS") == "3",
          "run bounds OpenMP, OpenBLAS and MKL by the budget when their variables are unset")
    r = run([p, "run", "--threads", "3", "--", "env"], env=clean_env(OMP_NUM_THREADS="7"))
    check(env_of(r.stdout).get("OMP_NUM_THREADS") == "7", "a runtime variable already set is kept")
    r = run([p, "run", "--threads", "3", "--no-runtime-env", "--", "env"], env=clean_env())
    e = env_of(r.stdout)
    check("OMP_NUM_THREADS" not in e and "MKL_NUM_THREADS" not in e, "--no-runtime-env leaves them unset")
    r = run([p, "run", "--group", "g1", "--", "env"])
    check(env_of(r.stdout).get("POOLSHIM_GROUP") == "g1", "--group sets POOLSHIM_GROUP")
    r = run([p, "run", "env"])
    e = env_of(r.stdout)
    check(e.get("LD_PRELOAD") == after_shim(), "without -- the first non-option starts the command; library found next to the command")
    check("POOLSHIM_NUM_THREADS" not in e and "POOLSHIM_LOG" not in e, "nothing set that was not asked for")
    r = run([p, "run", "--", p, "run", "--", "env"])
    check(env_of(r.stdout).get("LD_PRELOAD") == after_shim(), "nested runs preload the shim once")
    r = run([p, "run", "--library", a.shim, "--", "env", "-u", "X", "sh", "-c", "echo \"$0 $1\"", "-x", "y"])
    check(r.stdout.strip() == "-x y", "options after the command belong to the command")


def cmd_run_preload(a):
    r = run([a.poolshim, "run", "--", a.probe, a.module])
    lines = r.stdout.splitlines()
    check(r.returncode == 0, "the probe ran under poolshim run")
    shim = next((l for l in lines if "shim_pool" in l), "")
    check("null" not in shim, "the shim is preloaded in the command")
    pools = [json.loads(l) for l in lines if l.startswith("{\"module\"")]
    check(pools and json.loads(shim)["shim_pool"] == pools[0].get("executorch_pool"),
          "a redirected module shares the shim's pool under poolshim run")


def cmd_run_python(a):
    env = clean_env(PYTHONPATH=a.python_dir)
    base = run([a.python, a.python_probe], env=env)
    check(base.returncode == 0 and "pools=2" in base.stdout, "without the shim the two extensions keep two pools")
    r = run([a.poolshim, "run", "--threads", "2", "--", a.python, a.python_probe], env=env)
    check(r.returncode == 0 and "status=ok" in r.stdout, "the extensions' work is correct under poolshim run")
    check("pools=1" in r.stdout, "poolshim run merges the extensions' pools into one")
    au = run([a.poolshim, "audit", a.python_dir])
    check(au.returncode == 0 and au.stdout.count("redirected") == 2, "audit: both extensions are redirected, exit 0")


def cmd_audit_usage(a):
    p = a.poolshim
    for bad in ([], ["--bogus"], ["--pid"], ["--pid", "abc"], ["--pid", "0"], ["--pid", "1", a.module]):
        r = run([p, "audit"] + bad)
        check(r.returncode == 2 and "poolshim audit:" in r.stderr, f"audit {' '.join(bad)}: exit 2 with a message")
    r = run([p, "audit", "/nonexistent/file.so"])
    check(r.returncode == 2 and "cannot read" in r.stderr, "an unreadable input: exit 2")
    r = run([p, "audit", "--help"])
    check(r.returncode == 0 and "exit status" in r.stdout, "audit --help documents the exit statuses")
    r = run([p, "audit", a.module])
    check(r.returncode == 0 and "redirected" in r.stdout, "a reachable module alone: exit 0")
    r = run([p, "audit", "--pid", str(os.getpid())])
    check(r.returncode == 0, "audit --pid of a process without pool copies: exit 0")


def cmd_audit_inputs(a):
    p = a.poolshim
    tmp = tempfile.mkdtemp(prefix="poolshim_audit_")
    try:
        data = open(a.module, "rb").read()
        os.makedirs(os.path.join(tmp, "deep", "er"))
        shutil.copy(a.module, os.path.join(tmp, "deep", "er", "copy.so"))
        open(os.path.join(tmp, "truncated.so"), "wb").write(data[: len(data) // 3])
        open(os.path.join(tmp, "header_only.so"), "wb").write(data[:64])
        bad = bytearray(data)
        bad[4] = 1  # ELFCLASS32
        open(os.path.join(tmp, "class32.so"), "wb").write(bad)
        open(os.path.join(tmp, "notes.txt"), "w").write("not an ELF file\n")
        open(os.path.join(tmp, "broken.whl"), "wb").write(b"PK\x03\x04 this is no zip")
        os.symlink(tmp, os.path.join(tmp, "deep", "loop"))  # a symlinked folder is not followed
        os.symlink(os.path.join(tmp, "deep", "er", "copy.so"), os.path.join(tmp, "link.so"))
        r = run([p, "audit", "--all", tmp])
        check(r.returncode == 2 and "INCOMPLETE" in r.stdout, f"a broken archive makes the run exit 2 (got {r.returncode})")
        check(r.stdout.count("copy.so") == 1 and "link.so" not in r.stdout, "folders are searched once each, links deduplicated")
        check("class32.so" in r.stdout and "32-bit ELF" in r.stdout, "a 32-bit file is listed as not read, with the reason")
        check("truncated.so" in r.stdout, "a truncated file is judged from what it holds")
        check("header_only.so" in r.stdout, "a file cut after its header is listed")
        check("notes.txt" not in r.stdout, "non-ELF files are skipped")
        check("broken.whl" in r.stderr, "the broken archive is named on stderr")
        r = run([p, "audit", "--json", "--all", tmp])
        j = json.loads(r.stdout)
        bad = sorted(os.path.basename(f["path"].split("!")[0]) for f in j["incomplete"])
        check(j["exit_status"] == 2 and j["complete"] is False and
              {"broken.whl", "class32.so", "truncated.so", "header_only.so"} <= set(bad),
              f"--json lists every input not read or read in part, with its reason ({bad})")
        for name in ("broken.whl", "class32.so", "truncated.so", "header_only.so"):
            os.remove(os.path.join(tmp, name))
        r = run([p, "audit", tmp])
        check(r.returncode == 0, f"the same folder without the broken inputs: exit 0 (got {r.returncode})")
        r = run([p, "audit", os.path.join(tmp, "notes.txt")])
        check(r.returncode == 0 and "not an ELF file or archive" in r.stderr, "a named non-ELF file: a note, exit 0")
    finally:
        shutil.rmtree(tmp)


def cmd_info(a):
    p = a.poolshim
    r = run([p, "info"])
    check(r.returncode == 0 and r.stdout.startswith("budget: "), "info prints the budget first, exit 0")
    for key in ("affinity mask:", "cgroup quota:", "topology:", "POOLSHIM_NUM_THREADS", "POOLSHIM_LOG",
                "POOLSHIM_DISABLE", "pool: poolshim's own workers", "passthrough engine",
                "library: " + os.path.realpath(a.shim)):
        check(key in r.stdout, f"info shows {key}")
    r = run([p, "info"], env=clean_env(POOLSHIM_NUM_THREADS="3"))
    check("budget: 3 threads" in r.stdout and "POOLSHIM_NUM_THREADS=3" in r.stdout, "the environment sets the budget")
    r = run([p, "info"], env=clean_env(POOLSHIM_NUM_THREADS="lots"))
    check(r.returncode == 0 and "invalid" in r.stdout and "budget: 3 threads" not in r.stdout,
          "an invalid value is shown as ignored")
    check(run([p, "info", "extra"]).returncode == 2, "info with an argument: exit 2")
    r = run([p, "info", "--json"], env=clean_env(POOLSHIM_NUM_THREADS="3"))
    j = json.loads(r.stdout)
    check(r.returncode == 0 and j["budget"] == 3 and j["library"] == os.path.realpath(a.shim), "info --json: budget and library")
    check(j["pool"]["engine"] == "poolshim's own workers" and j["pool"]["max_workers"] == 2,
          "info --json: the pool is the shim's own workers, budget - 1 of them")
    pt = j["passthrough_engine"]
    check(pt["usable"] is True and os.path.realpath(pt["path"]).startswith("/") and "libpthreadpool" in pt["path"],
          "info --json: the passthrough engine's path (Debian's libpthreadpool is installed here)")
    version = run([p, "--version"]).stdout.split()[-1]
    check(j["poolshim_version"] == version, "info --json reports the command's version")
    r = run([p, "info", "--pid", str(os.getpid())])
    check(r.returncode == 0 and "libpoolshim: NOT loaded" in r.stdout, "info --pid of a process without the shim says so")
    child = spawn(["sleep", "30"], clean_env(LD_PRELOAD=os.path.realpath(a.shim), OMP_NUM_THREADS="2"),
                  stdout=None, stderr=None)
    try:
        for _ in range(200):  # until the loader has mapped the preload
            if "libpoolshim" in open(f"/proc/{child.pid}/maps").read():
                break
            time.sleep(0.01)
        r = run([p, "info", "--json", "--pid", str(child.pid)])
        j = json.loads(r.stdout)
        check(j["shim_loaded"] is True and j["environment"]["OMP_NUM_THREADS"] == "2",
              "info --pid of a process with the shim: loaded, and its environment")
        r = run([p, "audit", "--pid", str(child.pid)])
        check(r.stdout.startswith(f"process {child.pid}: libpoolshim is loaded"), "audit --pid says first that the shim is loaded")
    finally:
        stop(child)


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("--poolshim", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--probe")
    ap.add_argument("--module")
    ap.add_argument("--python")
    ap.add_argument("--python-dir")
    ap.add_argument("--python-probe")
    a = ap.parse_args()
    {"run-usage": cmd_run_usage, "run-env": cmd_run_env, "run-preload": cmd_run_preload,
     "run-python": cmd_run_python, "audit-usage": cmd_audit_usage, "audit-inputs": cmd_audit_inputs,
     "info": cmd_info}[a.check](a)


if __name__ == "__main__":
    main("elf_cli " + " ".join(sys.argv[1:2]), body)
