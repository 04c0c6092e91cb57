#!/usr/bin/env python3
"""Bad input from outside (issue 9, point 7): a real host (legacy_host with module_a and module_b)
under LD_PRELOAD of the shim, one process per input, each with a watchdog (a hang is killed and
fails). For every input it checks: the exit status is 0, stdout says status=ok with every checksum
right and, apart from the per-run values (addresses, thread ids, top-up counts), is the same as a
run with no POOLSHIM_* variable at all; stderr holds exactly one line "poolshim: warning: ...",
matching what the mode expects, and nothing else that does not start with "poolshim: ".

usage: bad_input.py MODE --shim LIB --host EXE --linked-host EXE --lib DIR
modes:
  env VAR    VAR set to empty, zero, negative, huge, hexadecimal, exponent, whitespace-padded,
             non-UTF-8 and 4096-byte values: one "invalid VAR=..." line, the default in force.
  log-file   POOLSHIM_LOG_FILE (with POOLSHIM_LOG=info) naming a directory, a file in a missing
             folder, a symlink, a FIFO with no reader (must not block), /dev/full (every write
             fails) and a read-only file (opened as user nobody when run as root, by a host run
             from private copies: proc_util.AsUser; skipped as root without setpriv): one
             "cannot open/write POOLSHIM_LOG_FILE" line, the log lines on stderr instead.
  budget     POOLSHIM_NUM_THREADS=4096 on a machine with far fewer CPUs: honoured (shim.budget=4096)
             with one "budget 4096 is above the N CPUs available" line; a short run finishes.
  secure     a set-user-ID copy of the linked host (libpoolshim.so is its DT_NEEDED: ld.so ignores
             LD_PRELOAD paths in secure mode) run as nobody (copies: proc_util.AsUser, whose
             folder must not be nosuid): POOLSHIM_LOG=debug and
             POOLSHIM_NUM_THREADS=1 are not read (stderr empty, the machine's budget). The same
             copy without the set-user-ID bit is the control: there the variables are read.
             Exits 77 (skipped) when not root, without setpriv or when the temp dir is nosuid.
"""
import argparse
import os
import re
import shutil
import stat
import sys
import tempfile

from proc_util import AsUser, abort, check, clean_env, main, run, skip

WATCHDOG = 120  # seconds; a generous bound that only catches a hang, never a timing assertion
# stdout keys whose values differ from run to run whatever the shim does.
VOLATILE = re.compile(r"^(module\.\d+\.(pool|pthreadpool|workers|topup_calls|path)|"
                      r"module\.\d+\.topup\.(checksum|expected))=")
WARNING = re.compile(r"^poolshim: warning: ", re.M)

# The hostile values, and for each variable a whitespace-padded copy of a valid value.
PADDED = {"POOLSHIM_NUM_THREADS": b" 2 ", "POOLSHIM_LOG": b" info", "POOLSHIM_DISABLE": b"all ",
          "POOLSHIM_LOG_FILE": b" /tmp/poolshim.log"}
HOSTILE = [("empty", b""), ("zero", b"0"), ("negative", b"-1"),
           ("huge", b"184467440737095516160"), ("hexadecimal", b"0x2"), ("exponent", b"2e0"),
           ("non-UTF-8", b"\xff\xfe\xc0"), ("4096 bytes", b"9" * 4096)]


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["env", "log-file", "budget", "secure"])
    ap.add_argument("var", nargs="?")
    ap.add_argument("--shim", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--linked-host", required=True)
    ap.add_argument("--lib", required=True)
    return ap.parse_args()


def base_env(extra=None, preload=None):
    """A clean environment with LEGACY_ET_NUM_THREADS=3 and extra (values may be bytes)."""
    return clean_env(LEGACY_ET_NUM_THREADS="3", LD_PRELOAD=preload or "", **(extra or {}))


MODULES = ("module_a.so", "module_b.so")


def host_cmd(args, host=None, calls="20", modules=None):
    """The host's command line; modules: the modules' paths (default: the build tree's)."""
    modules = modules or [os.path.join(args.lib, m) for m in MODULES]
    return [host or args.host, "--scenario", "alternating", "--calls", calls, "--items", "16",
            "--spin-ns", "500"] + list(modules)


def staged_modules(args, user):
    """Copies of the host's modules that user can load (proc_util.AsUser.stage)."""
    return [user.stage(os.path.join(args.lib, m)) for m in MODULES]


def run_host(what, cmd, env):
    """(exit status, stdout, stderr) of one run; a hang fails the driver (proc_util's watchdog)."""
    r = run(cmd, env, what=what, timeout=WATCHDOG)
    return r.returncode, r.stdout, r.stderr


def stable(out):
    return [line for line in out.splitlines() if not VOLATILE.match(line)]


def values(out):
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def healthy(what, rc, out):
    """The host ran to the end: exit 0, status=ok, every checksum equal to its expected value."""
    v = values(out)
    bad = [k for k in v if k.endswith(".checksum") and v[k] != v.get(k[:-9] + ".expected")]
    ok = check(rc == 0 and v.get("status") == "ok" and not bad,
               f"{what}: exit 0, status=ok, checksums right (rc={rc}, wrong: {bad})")
    return ok


def one_warning(what, err, pattern):
    warnings = WARNING.findall(err)
    others = [l for l in err.splitlines() if not l.startswith("poolshim: ")]
    ok = check(len(warnings) == 1 and re.search(pattern, err, re.M) is not None and not others,
               f"{what}: exactly one warning line matching {pattern!r}")
    if not ok:
        print("--- stderr ---\n" + err[:3000])
    return ok


def mode_env(args, baseline):
    var = args.var
    cases = HOSTILE + [("whitespace-padded", PADDED[var])]
    if var == "POOLSHIM_LOG_FILE":
        # Absolute but longer than PATH_MAX; every other hostile value is not an absolute path.
        cases = [c for c in cases if c[0] != "4096 bytes"] + [("4096 bytes", b"/" + b"a" * 4095)]
    for name, value in cases:
        what = f"{var}={name}"
        rc, out, err = run_host(what, host_cmd(args), base_env({var: value}, preload=args.shim))
        if healthy(what, rc, out):
            check(stable(out) == baseline, f"{what}: stdout as without any POOLSHIM_* variable")
        one_warning(what, err, rf"^poolshim: warning: invalid {var}='")


def mode_log_file(args, baseline):
    if os.geteuid() == 0:  # root writes a 0444 file anyway: be nobody for that case
        with AsUser() as nobody:
            log_file_cases(args, baseline, nobody)
    else:
        log_file_cases(args, baseline, None)


def log_file_cases(args, baseline, nobody):
    """Every case but the read-only file runs as this process; that one as nobody when given,
    from copies of the host, its modules and the shim, its file in nobody's reach (a file in a
    folder nobody cannot traverse would fail to open for that reason instead)."""
    tmp = tempfile.mkdtemp(prefix="poolshim_badlog_")
    try:
        real = os.path.join(tmp, "real.log")
        open(real, "w").close()
        link = os.path.join(tmp, "link.log")
        os.symlink(real, link)
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        readonly = os.path.join(nobody.dir if nobody else tmp, "readonly.log")
        open(readonly, "w").close()
        os.chmod(readonly, 0o444)
        as_self = (host_cmd(args), args.shim)
        as_nobody = as_self
        if nobody:
            check(nobody.can(readonly, os.F_OK), "nobody can reach the read-only file")
            as_nobody = (nobody.command(host_cmd(args, nobody.stage(args.host),
                                                 modules=staged_modules(args, nobody))),
                         nobody.stage(args.shim))
        cases = [("a directory", tmp, as_self, "cannot open"),
                 ("a missing folder", tmp + "/no/such.log", as_self, "cannot open"),
                 ("a symlink", link, as_self, "cannot open"), ("a FIFO with no reader", fifo, as_self, "cannot open"),
                 ("/dev/full", "/dev/full", as_self, "cannot write to"),
                 ("a read-only file", readonly, as_nobody, "cannot open")]
        for name, path, (cmd, shim), verb in cases:
            what = f"POOLSHIM_LOG_FILE={name}"
            env = base_env({"POOLSHIM_LOG_FILE": path, "POOLSHIM_LOG": "info"}, preload=shim)
            rc, out, err = run_host(what, cmd, env)
            if healthy(what, rc, out):
                check(stable(out) == baseline, f"{what}: stdout as without any POOLSHIM_* variable")
            one_warning(what, err, rf"^poolshim: warning: {verb} POOLSHIM_LOG_FILE \(")
            check("poolshim: pool started" in err, f"{what}: the log lines went to stderr instead")
        check(os.path.getsize(real) == 0, "the symlink's target was not written to")
        check(os.path.getsize(readonly) == 0, "the read-only file was not written to")
    finally:
        shutil.rmtree(tmp)


def mode_budget(args):
    cpus = len(os.sched_getaffinity(0))
    if cpus * 2 >= 4096:
        skip("this machine has too many CPUs for a budget of 4096 to be far above them")
    what = "POOLSHIM_NUM_THREADS=4096"
    rc, out, err = run_host(what, host_cmd(args, calls="2"),
                            base_env({"POOLSHIM_NUM_THREADS": "4096"}, preload=args.shim))
    if healthy(what, rc, out):
        check(values(out).get("shim.budget") == "4096", f"{what}: honoured (shim.budget=4096)")
    one_warning(what, err, r"^poolshim: warning: budget 4096 is above the \d+ CPUs? available")


def mode_secure(args):
    if os.geteuid() != 0:
        skip("secure mode needs root to make a set-user-ID copy run by another user")
    with AsUser() as nobody:
        if os.statvfs(nobody.dir).f_flag & os.ST_NOSUID:
            skip(f"{nobody.dir} is on a nosuid filesystem")
        # The copy's RUNPATH names the folder, where its libpoolshim.so.0 is copied too: an
        # absolute path, which ld.so follows in secure mode (it ignores LD_LIBRARY_PATH there).
        host = nobody.stage(args.linked_host)
        cmd = nobody.command(host_cmd(args, host, modules=staged_modules(args, nobody)))
        env = base_env({"POOLSHIM_LOG": "debug", "POOLSHIM_NUM_THREADS": "1"})
        # Control: the same copy, not set-user-ID, run as nobody: the variables are read.
        os.chmod(host, 0o755)
        rc, out, err = run_host("control", cmd, env)
        if healthy("control (no set-user-ID bit)", rc, out):
            check(values(out).get("shim.budget") == "1" and "poolshim: " in err,
                  "control: POOLSHIM_NUM_THREADS=1 and POOLSHIM_LOG=debug are read")
        else:
            print("--- stderr ---\n" + err[:3000])
        os.chmod(host, 0o755 | stat.S_ISUID)
        rc, out, err = run_host("set-user-ID copy", cmd, env)
        if healthy("set-user-ID copy as nobody", rc, out):
            v = values(out)
            check(v.get("shim.loaded") == "1", "secure: the shim is loaded (linked host)")
            check(v.get("shim.budget") == str(len(os.sched_getaffinity(0))),
                  f"secure: POOLSHIM_NUM_THREADS=1 not read, the machine's budget (got {v.get('shim.budget')})")
            check(err == "", f"secure: POOLSHIM_LOG=debug not read, stderr empty (got {err[:500]!r})")
        else:
            print("--- stderr ---\n" + err[:3000])


def body():
    args = parse_args()
    if args.mode in ("env", "log-file"):
        # The reference: the same host, preloaded, with no POOLSHIM_* variable at all.
        brc, bout, berr = run_host("baseline", host_cmd(args), base_env(preload=args.shim))
        if not healthy("baseline", brc, bout) or not check(berr == "", "baseline: stderr empty"):
            abort("the baseline run is healthy")
        baseline = stable(bout)
        if args.mode == "env":
            mode_env(args, baseline)
        else:
            mode_log_file(args, baseline)
    elif args.mode == "budget":
        mode_budget(args)
    else:
        mode_secure(args)


if __name__ == "__main__":
    main(" ".join(["bad_input"] + [a for a in sys.argv[1:3] if not a.startswith("-")]), body)
