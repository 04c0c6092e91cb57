#!/usr/bin/env python3
"""POOLSHIM_LOG_FILE from outside: runs core_driver's checks with the log pointed at a fresh file
(--mode file) or at a symlink (--mode symlink), then checks where the lines went.

usage: diag_log_file.py --driver core_driver.py --mode file|symlink -- DRIVER_ARGS... -- COMMAND...
(--driver is kept for the callers; core_driver is imported from this folder.)
"""
import argparse
import os
import sys
import tempfile

import core_driver
from proc_util import check, main


def body():
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
            extra = ["--env", "POOLSHIM_LOG_FILE=" + log, "--stderr-empty"]
        else:
            # O_NOFOLLOW: the shim refuses the link, says so once, and logs to stderr instead.
            extra = ["--env", "POOLSHIM_LOG_FILE=" + log,
                     "--stderr-match", "poolshim: warning: cannot open POOLSHIM_LOG_FILE",
                     "--stderr-match", "poolshim: pool started"]
        core_driver.drive(extra + rest)
        with open(target) as f:
            text = f.read()
    if args.mode == "file":
        needed = ["poolshim: budget:", "poolshim: pool started:", "get_threadpool() from"]
        missing = [n for n in needed if n not in text]
        check(not missing, f"the log file holds {needed} (missing {missing})")
        strays = [line for line in text.splitlines() if not line.startswith("poolshim: ")]
        check(not strays, f"every line of the log file starts with 'poolshim: ' ({strays[:3]})")
        if missing or strays:
            print("--- log file ---\n" + text)
    else:
        check(text == "", f"the symlink's target was not written to ({text[:300]!r})")


if __name__ == "__main__":
    main("diag_log_file", body)
