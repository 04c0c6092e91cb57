#!/usr/bin/env python3
"""Runs one process of a poolshim process test in a clean environment and checks what it prints.

The command (after "--") is a legacy host or a Python probe that prints key=value lines
(tests/fixtures/host/host_cli.h). This driver builds the child's environment from scratch
(the inherited LD_PRELOAD, POOLSHIM_* and LEGACY_ET_* are dropped), runs it with a timeout
(a hang is killed and fails the test), and asserts:
  - the exit code (0 unless --expect-rc) and status=ok (unless --expect status=...);
  - every <key>.checksum equals <key>.expected;
  - every stdout line is key=value (the shim must never write to stdout);
  - each --expect KEY<op>VALUE, op one of = != <= >= (numbers compare as integers);
  - --stderr-empty: nothing on stderr; --stderr-match REGEX (repeatable): stderr matches (re.search).

usage: core_driver.py [--preload LIB]... [--env K=V]... [--timeout S] [--expect K=V]...
                      [--expect-rc N] [--stderr-empty] [--stderr-match RE] [--skip-rc N]
                      -- COMMAND [ARGS...]
"""
import argparse
import os
import re
import signal
import subprocess
import sys

from proc_checks import preload_value, sanitizer_options

SCRUBBED_PREFIXES = ("POOLSHIM_", "LEGACY_ET_", "ASAN_OPTIONS", "LSAN_OPTIONS")
EXPECT_RE = re.compile(r"^([A-Za-z0-9_.]+)(<=|>=|!=|=)(.*)$")


def parse_args(argv):
    if "--" not in argv:
        sys.exit("core_driver: missing '--' before the command")
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
                    help="the command exiting with this code means 'skipped': exit with it too")
    args = ap.parse_args(argv[:split])
    args.command = argv[split + 1:]
    if not args.command:
        sys.exit("core_driver: empty command")
    return args


def child_env(args):
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith(SCRUBBED_PREFIXES)}
    env.update(sanitizer_options())  # a sanitizer build's options; --env may still override
    for item in args.env:
        key, _, value = item.partition("=")
        env[key] = value
    preload = preload_value(*args.preload)
    if preload:
        env["LD_PRELOAD"] = preload
    return env


def run(args, env):
    # A new session so that a hang can be killed with every thread and child it started.
    proc = subprocess.Popen(args.command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=args.timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out, err, True


def compare(op, got, want):
    try:
        g, w = int(got, 0), int(want, 0)
    except ValueError:
        g, w = got, want
        if op in ("<=", ">="):
            return False
    return {"=": g == w, "!=": g != w, "<=": g <= w, ">=": g >= w}[op]


def check(args, rc, out, err, timed_out):
    failures = []
    if timed_out:
        return [f"timed out after {args.timeout:g}s: killed (a hang, e.g. a nested-call deadlock)"]
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


def main():
    args = parse_args(sys.argv[1:])
    env = child_env(args)
    shown_env = " ".join(f"{k}={env[k]}" for k in sorted(env)
                         if k == "LD_PRELOAD" or k.startswith(SCRUBBED_PREFIXES))
    print(f"core_driver: {shown_env} {' '.join(args.command)}")
    rc, out, err, timed_out = run(args, env)
    if args.skip_rc is not None and rc == args.skip_rc:
        sys.stdout.write(err)
        print("core_driver: skipped")
        return args.skip_rc
    failures = check(args, rc, out, err, timed_out)
    sys.stdout.write(out)
    if err:
        sys.stdout.write("--- stderr ---\n" + err + ("" if err.endswith("\n") else "\n"))
    for f in failures:
        print(f"FAIL: {f}")
    print("core_driver: " + ("FAILED" if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
