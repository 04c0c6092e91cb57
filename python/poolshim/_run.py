"""`python -m poolshim run`: the `poolshim run` command in pure Python (like `python -m tbb`).

Finds libpoolshim.so, puts it first in LD_PRELOAD (keeping what is there), sets POOLSHIM_* when
asked, sets OMP_NUM_THREADS / OPENBLAS_NUM_THREADS / MKL_NUM_THREADS to the budget when they are
unset (--no-runtime-env leaves them alone), and replaces this process with the command."""
import argparse
import ctypes.util
import math
import os
import sys

from . import _native, _runtimes

EXIT_USAGE = 2
EXIT_EXEC_FAILED = 127
LOG_LEVELS = ("off", "warn", "info", "debug")
MAX_THREADS = 4096


def _library_candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from ._build import LIBDIR_FROM_MODULE
    except ImportError:
        LIBDIR_FROM_MODULE = None
    dirs = []
    if LIBDIR_FROM_MODULE:  # build tree (build/python -> build/lib) or install (pythondir -> libdir)
        dirs.append(os.path.normpath(os.path.join(here, LIBDIR_FROM_MODULE)))
    dirs.append(os.path.normpath(os.path.join(here, "..", "..", "build", "lib")))  # source tree
    out = []
    for d in dirs:
        out += [os.path.join(d, "libpoolshim.so"), os.path.join(d, "libpoolshim.so.0")]
    return out


def find_library(tried):
    """The library to preload: the one already loaded here, else one next to this module, else the
    system's (ldconfig). Returns a path or soname, or None; `tried` collects what was looked at."""
    path = _native.library_path()
    if path:
        return os.path.realpath(path)
    for c in _library_candidates():
        tried.append(c)
        if os.access(c, os.R_OK):
            return os.path.realpath(c)
    tried.append("ldconfig: libpoolshim")
    return ctypes.util.find_library("poolshim")


def _positive(text):
    text = text.strip()
    if not text.isdigit():
        return None
    v = int(text)
    return v if 1 <= v <= MAX_THREADS else None


def _cgroup_cpus():
    """ceil(quota / period) of the tightest cgroup v2 cpu.max up the hierarchy, or None."""
    try:
        with open("/proc/self/cgroup") as f:
            rel = next((l.split(":", 2)[2].strip() for l in f if l.startswith("0::")), None)
    except OSError:
        return None
    if rel is None:
        return None
    best = None
    path = rel
    while True:
        try:
            with open(os.path.join("/sys/fs/cgroup", path.lstrip("/"), "cpu.max")) as f:
                quota, period = f.read().split()
            if quota != "max" and int(period) > 0:
                n = max(1, math.ceil(int(quota) / int(period)))
                best = n if best is None else min(best, n)
        except (OSError, ValueError):
            pass
        if path in ("", "/"):
            break
        path = os.path.dirname(path.rstrip("/"))
    return best


def budget(threads):
    """The budget the preloaded shim will compute: --threads, else POOLSHIM_NUM_THREADS, else
    min(affinity mask, cgroup v2 quota). (`poolshim info` shows every source in detail.)"""
    if threads:
        return threads
    env = _positive(os.environ.get("POOLSHIM_NUM_THREADS", ""))
    if env:
        return env
    n = len(os.sched_getaffinity(0))
    cg = _cgroup_cpus()
    return max(1, min(n, cg) if cg else n)


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m poolshim run",
        description="Run CMD with libpoolshim.so preloaded, so that the thread pools of the modules it "
                    "loads become one process-wide pool.",
        epilog="OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS are set to the budget when "
               "unset (other runtimes' pools are not merged; this bounds them by the same budget). "
               "Exit status: CMD's own; 2 on a usage error or when the library is not found; 127 when "
               "CMD cannot be executed.")
    p.add_argument("--threads", metavar="N", help="set POOLSHIM_NUM_THREADS=N, the thread budget (1..4096)")
    p.add_argument("--log", metavar="LEVEL", help="set POOLSHIM_LOG: off, warn, info or debug")
    p.add_argument("--group", metavar="NAME", help="set POOLSHIM_GROUP: share one budget with the group")
    p.add_argument("--library", metavar="PATH", help="preload this libpoolshim.so")
    p.add_argument("--no-runtime-env", action="store_true",
                   help="leave OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS alone")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="CMD [ARGS...]")
    return p


def _usage(msg):
    sys.stderr.write("python -m poolshim run: %s\n(see python -m poolshim run --help)\n" % msg)
    return EXIT_USAGE


def main(argv):
    p = _parser()
    try:
        a = p.parse_args(argv)
    except SystemExit as e:  # argparse: --help exits 0, a usage error 2
        return e.code if isinstance(e.code, int) else EXIT_USAGE
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        return _usage("no command given")
    threads = None
    if a.threads is not None:
        threads = _positive(a.threads)
        if threads is None:
            return _usage("--threads wants a whole number from 1 to 4096, not %r" % a.threads)
    if a.log is not None and a.log.strip().lower() not in LOG_LEVELS:
        return _usage("--log wants off, warn, info or debug, not %r" % a.log)
    if a.group is not None and (not a.group or len(a.group) > 63 or "/" in a.group):
        return _usage("--group wants a name of 1 to 63 characters without '/', not %r" % a.group)
    tried = []
    if a.library:
        if not os.access(a.library, os.R_OK):
            return _usage("cannot find the library %s" % a.library)
        lib = os.path.realpath(a.library)
    else:
        lib = find_library(tried)
        if not lib:
            sys.stderr.write("python -m poolshim run: libpoolshim.so not found; looked for:\n  %s\n"
                             "(use --library PATH)\n" % "\n  ".join(tried))
            return EXIT_USAGE
    if any(c in lib for c in ": "):
        return _usage("cannot preload %s: its path contains ':' or a space" % lib)

    env = os.environ
    old = [x for x in env.get("LD_PRELOAD", "").replace(" ", ":").split(":") if x]
    same = lambda x: x == lib or (os.path.exists(x) and os.path.realpath(x) == lib)
    if not any(same(x) for x in old):
        old.insert(0, lib)
    env["LD_PRELOAD"] = ":".join(old)
    if threads:
        env["POOLSHIM_NUM_THREADS"] = str(threads)
    if a.log is not None:
        env["POOLSHIM_LOG"] = a.log
    if a.group is not None:
        env["POOLSHIM_GROUP"] = a.group
    if not a.no_runtime_env:
        n = str(budget(threads))
        for var in _runtimes.BOUNDING_VARIABLES:
            env.setdefault(var, n)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(cmd[0], cmd)
    except OSError as e:
        sys.stderr.write("python -m poolshim run: cannot execute %s: %s\n" % (cmd[0], e.strerror))
        return EXIT_EXEC_FAILED
