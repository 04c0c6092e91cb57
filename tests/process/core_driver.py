#!/usr/bin/env python3
"""Runs one process of a poolshim process test in a clean environment and checks what it prints.

The command (after "--") is a legacy host or a Python probe that prints key=value lines
(tests/fixtures/host/host_cli.h). This driver builds the child's environment from scratch
(proc_util.clean_env: the inherited LD_PRELOAD, POOLSHIM_* and LEGACY_ET_* are dropped), runs it
under proc_util's watchdog (a hang is killed and fails the test), and asserts:
  - the exit code (0 unless --expect-rc) and status=ok (unless --expect status=...);
  - every <key>.checksum equals <key>.expected;
  - every stdout line is key=value (the shim must never write to stdout);
  - each --expect KEY<op>VALUE, op one of = != <= >= (numbers compare as integers);
  - --stderr-empty: nothing on stderr; --stderr-match REGEX (repeatable): stderr matches (re.search).
--skip-rc N: the command exiting N means it cannot run here; the driver then exits 77 (skipped).
--as-user USER: the command runs as USER (setpriv) from private copies (proc_util.AsUser): every
--preload and every command argument that is an absolute path of an existing file is staged and
replaced by its copy's path (a bare name such as prlimit is left to PATH). Skipped (77) when
that cannot be done: not root, no such user, no setpriv.

usage: core_driver.py [--preload LIB]... [--env K=V]... [--timeout S] [--expect K=V]...
                      [--expect-rc N] [--stderr-empty] [--stderr-match RE] [--skip-rc N]
                      [--as-user USER] -- COMMAND [ARGS...]
"""
import argparse
import os
import re
import sys

from proc_util import AsUser, abort, check, clean_env, main, run, skip

EXPECT_RE = re.compile(r"^([A-Za-z0-9_.]+)(<=|>=|!=|=)(.*)$")


def parse_args(argv):
    if "--" not in argv:
        abort("core_driver: missing '--' before the command")
    split = argv.index("--")
    ap = argparse.ArgumentParser(prog="core_driver.py")
    ap.add_argument("--preload", action="append", default=[], help="prepend to LD_PRELOAD, in order")
    ap.add_argument("--env", action="append", default=[], help="K=V for the child")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("--expect-rc", type=int, default=0)
    ap.add_argument("--stderr-empty", action="store_true")
    ap.add_argument("--stderr-match", action="append", default=[])
    ap.add_argument("--skip-rc", type=int, default=None,
                    help="the command exiting with this code means 'skipped' (exit 77)")
    ap.add_argument("--as-user", default=None,
                    help="run the command as this user, from private copies of its files")
    args = ap.parse_args(argv[:split])
    args.command = argv[split + 1:]
    if not args.command:
        abort("core_driver: empty command")
    return args


def child_env(args):
    env = clean_env(LD_PRELOAD=":".join(args.preload))
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    return env


def compare(op, got, want):
    try:
        g, w = int(got, 0), int(want, 0)
    except ValueError:
        g, w = got, want
        if op in ("<=", ">="):
            return False
    return {"=": g == w, "!=": g != w, "<=": g <= w, ">=": g >= w}[op]


def failures_of(args, rc, out, err):
    failures = []
    values = {}
    for line in out.splitlines():
        key, sep, value = line.partition("=")
        if not sep or not key:
            failures.append(f"stdout line is not key=value: {line!r}")
            continue
        values[key] = value
    if rc != args.expect_rc:
        failures.append(f"exit code {rc}, expected {args.expect_rc}")
    if not any(e.startswith("status") for e in args.expect) and values.get("status") != "ok":
        failures.append(f"status={values.get('status')!r}, expected 'ok'")
    for key, value in values.items():
        if key.endswith(".checksum"):
            want = values.get(key[: -len(".checksum")] + ".expected")
            if want != value:
                failures.append(f"{key}={value} but expected {want}")
    for item in args.expect:
        m = EXPECT_RE.match(item)
        if not m:
            failures.append(f"bad --expect {item!r}")
            continue
        key, op, want = m.groups()
        if key not in values:
            failures.append(f"{key} missing from the output (wanted {op}{want})")
        elif not compare(op, values[key], want):
            failures.append(f"{key}={values[key]}, expected {op}{want}")
    if args.stderr_empty and err:
        failures.append("stderr is not empty")
    for pattern in args.stderr_match:
        if not re.search(pattern, err, re.MULTILINE):
            failures.append(f"stderr does not match {pattern!r}")
    return failures


def as_user(args, user):
    """The command as user, from copies (proc_util.AsUser.stage) of the preloads and of every
    argument naming an existing file by its absolute path."""
    args.preload = [user.stage(lib) for lib in args.preload]
    args.command = user.command([user.stage(a) if os.path.isabs(a) and os.path.isfile(a) else a
                                 for a in args.command])


def drive(argv):
    """Runs the command argv describes and checks it (proc_util's verdict)."""
    args = parse_args(argv)
    if args.as_user:
        with AsUser(args.as_user) as user:
            as_user(args, user)
            check_command(args)
    else:
        check_command(args)


def check_command(args):
    env = child_env(args)
    shown_env = " ".join(f"{k}={env[k]}" for k in sorted(env)
                         if k == "LD_PRELOAD" or k.startswith(("POOLSHIM_", "LEGACY_ET_")))
    print(f"core_driver: {shown_env} {' '.join(args.command)}")
    r = run(args.command, env, timeout=args.timeout, what=" ".join(args.command))
    if args.skip_rc is not None and r.returncode == args.skip_rc:
        sys.stdout.write(r.stderr)
        skip(f"the command exited {args.skip_rc}")
    sys.stdout.write(r.stdout)
    if r.stderr:
        sys.stdout.write("--- stderr ---\n" + r.stderr + ("" if r.stderr.endswith("\n") else "\n"))
    failures = failures_of(args, r.returncode, r.stdout, r.stderr)
    for f in failures:
        check(False, f)
    if not failures:
        check(True, f"exit code {r.returncode}, status, checksums and every expectation")


if __name__ == "__main__":
    main("core_driver", lambda: drive(sys.argv[1:]))
