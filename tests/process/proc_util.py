"""The one helper of the process-test drivers (tests/process/*.py): a clean environment, child
processes under a watchdog, the shim's log, and the verdict.

Environment: clean_env() starts from this process's environment without any POOLSHIM_*,
LEGACY_ET_*, LD_PRELOAD or thread-count variable of the other runtimes (OMP_*, MKL_*,
OPENBLAS_*), then adds what the test sets. An LD_PRELOAD it is given goes through
preload_value(): in a sanitizer build the runtime comes first (docs/sanitizers.md).

Processes: spawn() and run() start every child in a session of its own under a watchdog. A
child still running after its timeout is killed with its whole process group, and the driver
stops with one failure, "TIMEOUT <what>" (a hang is never waited out, never a timing assertion).

Log: run(..., log="info") points POOLSHIM_LOG_FILE at a fresh temporary file and hands back its
text as result.log.

Verdict: check() prints "ok   <what>" or "FAIL <what>" and remembers failures; abort() and
require() record one and stop the driver; skip() stops it as skipped. main(name, body) runs the
driver: every failure again one per line, then "PASS <name>" (exit 0) or "FAILED <name>"
(exit 1), or "SKIP <name>: <why>" (exit 77, CTest's SKIP_RETURN_CODE: only for a missing
prerequisite, never for a failure).
"""
import os
import signal
import subprocess
import sys
import tempfile
import threading
import traceback

SKIP = 77
WATCHDOG = 120  # seconds: only catches a hang; each driver may pass its own
FAILURES = []

# ---------------------------------------------------------------------------------------------
# Verdict


class Skipped(Exception):
    """skip(): the driver cannot run here (a prerequisite is missing)."""


class Stopped(Exception):
    """abort(): a failure after which the rest of the driver means nothing."""


class TimedOut(Exception):
    """A child outlived its watchdog; it has been killed with its process group."""


def check(cond, what):
    """Prints one ok/FAIL line and remembers a failure; returns cond."""
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        FAILURES.append(what)
    return bool(cond)


def abort(what):
    """Records a failure and stops the driver."""
    check(False, what)
    raise Stopped(what)


def require(cond, what):
    """check(), and stop the driver when cond is false."""
    if not check(cond, what):
        raise Stopped(what)


def skip(why):
    """Stops the driver as skipped (exit 77)."""
    raise Skipped(why)


def main(name, body):
    """Runs body() and exits with the verdict; never returns."""
    code = None
    try:
        body()
    except Skipped as e:
        code = SKIP
        print(f"SKIP {name}: {e}")
    except Stopped:
        pass
    except TimedOut as e:
        check(False, f"TIMEOUT {e}")
    except Exception:  # noqa: BLE001 - a driver bug is a failure, with its traceback
        traceback.print_exc(file=sys.stdout)
        check(False, "the driver raised an exception (traceback above)")
    finally:
        stop_all()
    if FAILURES:
        print(f"--- {len(FAILURES)} failure(s):")
        for what in FAILURES:
            print(f"FAIL {what}")
        print(f"FAILED {name}")
        code = 1
    elif code is None:
        print(f"PASS {name}")
        code = 0
    sys.stdout.flush()
    sys.exit(code)


# ---------------------------------------------------------------------------------------------
# Environment

SCRUBBED_PREFIXES = ("POOLSHIM_", "LEGACY_ET_", "OMP_", "MKL_", "OPENBLAS_")


def preload_value(*libs):
    """LD_PRELOAD for a child that preloads libs (none: ""), the sanitizer runtime first if any."""
    runtime = os.environ.get("SANITIZER_RUNTIME", "")
    return ":".join(([runtime] if runtime else []) + [lib for lib in libs if lib])


def clean_env(runtime=True, **extra):
    """This process's environment scrubbed (see the module's comment), plus extra. An LD_PRELOAD
    in extra goes through preload_value. A bytes value in extra (a name or value that is not
    UTF-8) makes the whole environment bytes. runtime=False: no sanitizer runtime unless the
    shim is preloaded too, for a host that loads no instrumented code (PyTorch under a preloaded
    libasan alone aborts at its first C++ exception: libasan found no __cxa_throw at start-up)."""
    env = {k: v for k, v in os.environ.items()
           if k != "LD_PRELOAD" and not k.startswith(SCRUBBED_PREFIXES)}
    libs = extra.pop("LD_PRELOAD", "")
    preload = preload_value(libs) if runtime or libs else ""
    if preload:
        env["LD_PRELOAD"] = preload
    env.update(extra)
    if any(isinstance(v, bytes) for v in env.values()):
        env = {os.fsencode(k): os.fsencode(v) for k, v in env.items()}
    return env


# ---------------------------------------------------------------------------------------------
# Processes

_LIVE = []  # spawned and not yet finished: stop_all() kills what a failing driver leaves behind


def _running(proc):
    """True while proc has not exited; never reaps it (finish() or the caller does)."""
    if proc.returncode is not None:
        return False
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:
        return False


def kill_group(proc):
    """SIGKILL to proc's process group (its session: every thread and child it started)."""
    if _running(proc):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def spawn(cmd, env=None, what=None, timeout=WATCHDOG, stdin=None, stdout=subprocess.PIPE,
          stderr=subprocess.PIPE, text=False, **popen_kw):
    """Starts cmd (env: clean_env() by default) in a session of its own, under a watchdog that
    kills its process group after timeout seconds. finish() then raises TimedOut."""
    proc = subprocess.Popen(cmd, env=clean_env() if env is None else env, stdin=stdin, stdout=stdout,
                            stderr=stderr, text=text, start_new_session=True, **popen_kw)
    proc.what = what or " ".join(os.fsdecode(c) for c in cmd)[:160]
    proc.timeout = timeout
    proc.timed_out = False

    def fire():
        if _running(proc):
            proc.timed_out = True
            kill_group(proc)
    proc.watchdog = threading.Timer(timeout, fire)
    proc.watchdog.daemon = True
    proc.watchdog.start()
    _LIVE.append(proc)
    return proc


def finish(proc, input=None):
    """Waits for proc (feeding input); (stdout, stderr). Raises TimedOut if the watchdog fired."""
    try:
        out, err = proc.communicate(input)
    finally:
        proc.watchdog.cancel()
    ended(proc)
    return out, err


def ended(proc):
    """Bookkeeping for a child the caller has waited for itself (os.wait4): raises TimedOut if
    the watchdog killed it."""
    proc.watchdog.cancel()
    if proc in _LIVE:
        _LIVE.remove(proc)
    if proc.timed_out:
        raise TimedOut(f"{proc.what}: killed after {proc.timeout:g} s (a hang)")


def stop(proc):
    """Kills a child the test no longer needs (a sleeper, a holder) and reaps it."""
    proc.watchdog.cancel()
    kill_group(proc)
    proc.communicate()
    if proc in _LIVE:
        _LIVE.remove(proc)


def stop_all():
    for proc in list(_LIVE):
        proc.watchdog.cancel()
        kill_group(proc)
    _LIVE.clear()


class Result:
    """What run() hands back: returncode, stdout and stderr (text; the bytes as *_bytes) and
    log (the shim's log when run(log=...) asked for it, else "")."""

    def __init__(self, returncode, out, err, log):
        self.returncode = returncode
        self.stdout_bytes, self.stderr_bytes = out or b"", err or b""
        self.stdout = self.stdout_bytes.decode("utf-8", "replace")
        self.stderr = self.stderr_bytes.decode("utf-8", "replace")
        self.log = log


def run(cmd, env=None, what=None, timeout=WATCHDOG, input=None, log=None, **popen_kw):
    """Runs cmd to its end under the watchdog; a Result. input: str or bytes for stdin.
    log: a POOLSHIM_LOG level; the shim's log file is then captured into result.log."""
    env = clean_env() if env is None else dict(env)
    log_path = None
    if log:
        fd, log_path = tempfile.mkstemp(prefix="poolshim_test_", suffix=".log")
        os.close(fd)
        if any(isinstance(k, bytes) for k in env):
            env.update({b"POOLSHIM_LOG": os.fsencode(log), b"POOLSHIM_LOG_FILE": os.fsencode(log_path)})
        else:
            env.update(POOLSHIM_LOG=log, POOLSHIM_LOG_FILE=log_path)
    if isinstance(input, str):
        input = input.encode()
    try:
        proc = spawn(cmd, env, what, timeout, stdin=subprocess.PIPE if input is not None else None,
                     **popen_kw)
        out, err = finish(proc, input)
        text = ""
        if log_path:
            with open(log_path, errors="replace") as f:
                text = f.read()
        return Result(proc.returncode, out, err, text)
    finally:
        if log_path:
            os.unlink(log_path)
