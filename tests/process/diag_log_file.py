#!/usr/bin/env python3
"""POOLSHIM_LOG_FILE from outside: runs core_driver.py with the log pointed at a fresh file
(--mode file) or at a symlink (--mode symlink), then checks where the lines went.

usage: diag_log_file.py --driver core_driver.py --mode file|symlink -- DRIVER_ARGS... -- COMMAND...
"""
import argparse
import os
import subprocess
import sys
import tempfile


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--mode", choices=["file", "symlink"], required=True)
    args = ap.parse_args(argv[:sep])
    rest = argv[sep + 1:]

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "poolshim.log")
        target = log
        if args.mode == "symlink":
            real = os.path.join(tmp, "real.log")
            open(real, "w").close()
            os.symlink(real, log)
            target = real
        if args.mode == "file":
            # The lines must go to the file only: stderr stays empty.
            cmd = [sys.executable, args.driver, "--env", "POOLSHIM_LOG_FILE=" + log, "--stderr-empty"] + rest
        else:
            # O_NOFOLLOW: the shim refuses the link, says so once, and logs to stderr instead.
            cmd = [sys.executable, args.driver, "--env", "POOLSHIM_LOG_FILE=" + log,
                   "--stderr-match", "poolshim: warning: cannot open POOLSHIM_LOG_FILE",
                   "--stderr-match", "poolshim: pool started"] + rest
        rc = subprocess.call(cmd)
        if rc != 0:
            print("diag_log_file: the driver failed", file=sys.stderr)
            return 1
        with open(target) as f:
            text = f.read()
        if args.mode == "file":
            needed = ["poolshim: budget:", "poolshim: pool started:", "get_threadpool() from"]
            missing = [n for n in needed if n not in text]
            if missing:
                print("diag_log_file: log file lacks %s:\n%s" % (missing, text), file=sys.stderr)
                return 1
            if any(not line.startswith("poolshim: ") for line in text.splitlines()):
                print("diag_log_file: a line without the prefix:\n" + text, file=sys.stderr)
                return 1
        elif text:
            print("diag_log_file: the symlink's target was written to:\n" + text, file=sys.stderr)
            return 1
    print("diag_log_file: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
