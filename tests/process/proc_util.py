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

Another user: with AsUser() as u (default nobody) runs a child as that user from private copies
of what it needs: u.stage(path) copies a file into a folder of its own that the user can reach,
with the libraries its RUNPATH finds, and u.command(argv) puts setpriv in front. See AsUser.

Verdict: check() prints "ok   <what>" or "FAIL <what>" and remembers failures; abort() and
require() record one and stop the driver; skip() stops it as skipped. main(name, body) runs the
driver: every failure again one per line, then "PASS <name>" (exit 0) or "FAILED <name>"
(exit 1), or "SKIP <name>: <why>" (exit 77, CTest's SKIP_RETURN_CODE: only for a missing
prerequisite, never for a failure).
"""
import os
import pwd
import re
import shutil
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


# ---------------------------------------------------------------------------------------------
# Another user


class AsUser:
    """Runs children as another user (default nobody) from private copies of what they need.

    A build tree in a folder that user cannot traverse (a 0700 home: /root, a fresh mktemp -d)
    is out of its reach: ld.so ignores the preload ("cannot be preloaded ... ignored"), dlopen
    of a module fails (Permission denied), the host cannot be executed. So nothing the child
    needs is run from where it lies:

        with AsUser() as u:                        # skip(): not root, no such user, no setpriv
            host = u.stage(args.host)              # a copy the user can read, or a skip
            env = clean_env(LD_PRELOAD=u.stage(args.shim))
            run(u.command([host, u.stage(module)]), env)
                                                   # the folder is removed on leaving

    The folder is private to this test (mkdtemp, owned by root, mode 0755), in the first of
    $TMPDIR, /tmp, /var/tmp, /dev/shm the user can reach; a copy is 0755 when the original has
    an execute bit, else 0644. What a copy finds relative to its own place still resolves:
    stage() of an ELF file also stages each DT_NEEDED library that its RUNPATH (or RPATH,
    $ORIGIN expanded from the original's folder) finds, under the NEEDED name, and points the
    copy's RUNPATH at the folder (patchelf; an absolute path, so a set-user-ID copy finds them
    too: ld.so ignores LD_LIBRARY_PATH and $ORIGIN there). Modules a host loads by path are
    passed as staged paths by the caller. The sanitizer runtime that preload_value() puts first
    is the compiler's, in a system folder; entering checks that the user can read it."""

    SEARCH = ("/tmp", "/var/tmp", "/dev/shm")

    def __init__(self, name="nobody"):
        self.name = name
        self.dir = None
        self._staged = {}  # destination name -> realpath of its source

    # -- entering and leaving

    def __enter__(self):
        if os.geteuid() != 0:
            skip(f"needs root to run a process as {self.name} (uid {os.geteuid()})")
        try:
            entry = pwd.getpwnam(self.name)
        except KeyError:
            skip(f"no user {self.name}")
        self.uid, self.gid = entry.pw_uid, entry.pw_gid
        self.setpriv = shutil.which("setpriv")
        if self.setpriv is None:
            skip(f"no setpriv (util-linux) to run a process as {self.name}")
        for parent in dict.fromkeys((tempfile.gettempdir(),) + self.SEARCH):
            if not os.path.isdir(parent):
                continue
            folder = tempfile.mkdtemp(prefix=f"poolshim_as_{self.name}_", dir=parent)
            os.chmod(folder, 0o755)
            if self.can(folder, os.R_OK | os.X_OK):
                self.dir = folder
                break
            shutil.rmtree(folder)
        if self.dir is None:
            skip(f"no temporary folder that {self.name} can reach ($TMPDIR, {', '.join(self.SEARCH)})")
        runtime = os.environ.get("SANITIZER_RUNTIME", "")
        if runtime and not self.can(runtime, os.R_OK):
            self.__exit__(None, None, None)
            skip(f"the sanitizer runtime {runtime} is not readable as {self.name}")
        return self

    def __exit__(self, *exc):
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        return False

    # -- running as the user

    def command(self, argv):
        """argv run as the user: real and effective uid and gid, no supplementary groups."""
        return [self.setpriv, f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups",
                "--"] + list(argv)

    def drop(self):
        """Becomes the user (in a forked child: call(), or a preexec_fn)."""
        os.setgroups([])
        os.setgid(self.gid)
        os.setuid(self.uid)

    def call(self, fn):
        """Runs fn() in a forked child as the user; its result (an int) is the exit status returned."""
        pid = os.fork()
        if pid == 0:
            code = 2
            try:
                self.drop()
                code = fn()
            finally:
                os._exit(code)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    def can(self, path, mode):
        """True when the user may access path with mode (os.R_OK, ...), every folder on the way
        included: asked as the user (os.access in a forked child), so ACLs count too."""
        return self.call(lambda: 0 if os.access(path, mode) else 1) == 0

    # -- copies

    def stage(self, path, name=None):
        """A copy of path (followed if a symlink) in the private folder, as name (default its
        own name), that the user can read; with the libraries its RUNPATH finds (see the class)."""
        name = name or os.path.basename(path)
        real = os.path.realpath(path)
        dest = os.path.join(self.dir, name)
        if name in self._staged:
            if self._staged[name] != real:
                abort(f"as {self.name}: {name} staged twice, from {self._staged[name]} and {real}")
            return dest
        self._staged[name] = real
        shutil.copyfile(real, dest)
        executable = os.stat(real).st_mode & 0o111
        os.chmod(dest, 0o755 if executable else 0o644)
        if _is_elf(real):
            self._stage_runpath(real, dest)
        if not self.can(dest, os.R_OK):
            abort(f"as {self.name}: the copy {dest} is readable")
        return dest

    def _stage_runpath(self, real, dest):
        needed, search = _dynamic_entries(real)
        if not search:
            return
        origin = os.path.dirname(real)
        dirs = [re.sub(r"\$(ORIGIN|\{ORIGIN\})", origin, d) for d in search]
        for lib in needed:
            found = next((os.path.join(d, lib) for d in dirs if os.path.exists(os.path.join(d, lib))), None)
            if found:
                self.stage(found, lib)
        patchelf = shutil.which("patchelf")
        if patchelf is None:
            skip(f"no patchelf to point the RUNPATH of the copy of {os.path.basename(real)} "
                 f"({':'.join(search)}) at the copied libraries")
        r = run([patchelf, "--set-rpath", self.dir, dest], env=clean_env(runtime=False))
        if r.returncode != 0:
            abort(f"patchelf --set-rpath on the copy of {real}: {r.stderr.strip()}")


def _is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


_DYNAMIC_RE = re.compile(r"\((NEEDED|RUNPATH|RPATH)\)\s+[^\[]*\[(.*)\]")


def _dynamic_entries(path):
    """(DT_NEEDED names, RUNPATH or else RPATH folders) of an ELF file, read with readelf -d."""
    readelf = shutil.which("readelf")
    if readelf is None:
        skip("no readelf (binutils) to read what a copy of an ELF file needs")
    r = run([readelf, "-d", "--wide", path], env=clean_env(runtime=False))
    if r.returncode != 0:
        abort(f"readelf -d {path}: {r.stderr.strip()}")
    entries = {"NEEDED": [], "RUNPATH": [], "RPATH": []}
    for tag, value in _DYNAMIC_RE.findall(r.stdout):
        entries[tag].extend([value] if tag == "NEEDED" else [d for d in value.split(":") if d])
    # ld.so ignores DT_RPATH when DT_RUNPATH is present.
    return entries["NEEDED"], entries["RUNPATH"] or entries["RPATH"]
