"""Helpers shared by the process-test drivers: pass/fail bookkeeping and a clean environment."""
import os

FAILURES = []


def check(cond, what):
    """Print one ok/FAIL line and remember failures; returns cond."""
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def clean_env(**extra):
    """This process's environment without any POOLSHIM_* variable or LD_PRELOAD, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("POOLSHIM_") and k != "LD_PRELOAD"}
    env.update(extra)
    return env
