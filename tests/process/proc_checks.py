"""Helpers shared by the process-test drivers: pass/fail bookkeeping and a clean environment."""
import os

FAILURES = []


def check(cond, what):
    """Print one ok/FAIL line and remember failures; returns cond."""
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


# Sanitizer builds: CTest gives every test SANITIZER_RUNTIME (libasan.so or libtsan.so) and the
# *SAN_OPTIONS (tests/CMakeLists.txt, poolshim_test_rules). Every driver builds LD_PRELOAD with
# preload_value, so the runtime comes first, ahead of the shim, in each child it starts.
SANITIZER_OPTIONS = ("ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS", "LSAN_OPTIONS")


def preload_value(*libs):
    """LD_PRELOAD for a child that preloads libs (none: ""), the sanitizer runtime first if any."""
    runtime = os.environ.get("SANITIZER_RUNTIME", "")
    return ":".join(([runtime] if runtime else []) + [lib for lib in libs if lib])


def sanitizer_options():
    """The sanitizer options of a sanitizer build's test environment (empty otherwise)."""
    return {k: os.environ[k] for k in SANITIZER_OPTIONS if k in os.environ}


def clean_env(**extra):
    """This process's environment without any POOLSHIM_* variable or LD_PRELOAD, plus extra.
    An LD_PRELOAD in extra goes through preload_value (the sanitizer runtime first)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("POOLSHIM_") and k != "LD_PRELOAD"}
    preload = preload_value(extra.pop("LD_PRELOAD", ""))
    if preload:
        env["LD_PRELOAD"] = preload
    env.update(extra)
    return env
