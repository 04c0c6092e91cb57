"""threadpool_info(): every thread pool of this process, one dict each, in threadpoolctl's shape.

Each entry has threadpoolctl's keys (user_api, internal_api, prefix, filepath, version,
num_threads) and poolshim's own:
  merged          True when the pool's calls run on the shim's one pool
  reason          why it is merged or not, one sentence
  pool            the pool its work runs on: "poolshim" when merged, else its own filepath
  active_threads  worker threads of that pool alive now (from /proc/self/task), None when they
                  cannot be told apart from the process's other threads
  budget          the shim's thread budget for merged pools, else None
Entries, in this order: the shim's pool (also when the shim is not loaded: it then says so), each
module carrying an ExecuTorch thread-pool copy, the pthreadpool handles (with the shim: one entry
for all of them; without it: each module that carries pthreadpool), then the other runtimes
(OpenMP, BLAS, oneTBB: _runtimes.py). Nothing is loaded or started: libraries already mapped are
looked up with RTLD_NOLOAD, and only thread-count getters are called on them (as threadpoolctl
does)."""
import _ctypes
import ctypes
import os

from . import _native, _runtimes

# The entry points that tell a module carries a copy of a surface (shim/symbols/*.def).
_EXECUTORCH_MARKERS = ("_ZN10executorch9extension10threadpool14get_threadpoolEv",
                       "_ZN5torch10executorch10threadpool14get_threadpoolEv")
_PTHREADPOOL_MARKERS = ("pthreadpool_create",)
# The shim's OpenMP surface (shim/abi/openmp): when the loaded shim defines this entry point and
# runs it natively (the default: not POOLSHIM_OPENMP=forward, not POOLSHIM_DISABLE=openmp),
# OpenMP regions run on its pool; forwarding, libgomp's pool runs them.
_SHIM_OPENMP_MARKER = "GOMP_parallel"
_WORKER_NAME = "poolshim"  # the shim names its workers (shim/core/workers.cpp)

# (runtime name prefix in _runtimes.RUNTIMES, user_api, internal_api, thread-count getter)
_RUNTIME_APIS = (
    ("OpenMP", "openmp", "openmp", "omp_get_max_threads"),
    ("OpenBLAS", "blas", "openblas", "openblas_get_num_threads"),
    ("Intel MKL", "blas", "mkl", "MKL_Get_Max_Threads"),
    ("oneTBB", "tbb", "tbb", None),
)


def worker_threads(task_dir="/proc/self/task"):
    """The shim's worker threads alive in this process (named "poolshim")."""
    n = 0
    try:
        tids = os.listdir(task_dir)
    except OSError:
        return None
    for tid in tids:
        try:
            with open(os.path.join(task_dir, tid, "comm")) as f:
                n += f.read().strip() == _WORKER_NAME
        except OSError:
            pass  # the thread ended meanwhile
    return n


def _open_loaded(path):
    """A handle on a module already mapped here (never loads one), or None. Give it back with
    _close(): a handle left open would keep the module from being unloaded later."""
    try:
        return ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError:
        return None


def _close(lib):
    if lib is not None:
        try:
            _ctypes.dlclose(lib._handle)
        except (OSError, AttributeError):
            pass


def _defines(lib, path, names):
    """True when the module at path itself defines one of names (not a library it depends on)."""
    real = os.path.realpath(path)
    for name in names:
        try:
            addr = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value or 0
        except AttributeError:
            continue
        where = _native._path_of(addr)
        if where and os.path.realpath(where) == real:
            return True
    return False


def _call_int(lib, name):
    try:
        fn = getattr(lib, name)
    except AttributeError:
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = []
    return int(fn())


def _openblas_version(lib):
    try:
        fn = lib.openblas_get_config
    except AttributeError:
        return None
    fn.restype = ctypes.c_char_p
    words = (fn() or b"").decode("utf-8", "replace").split()
    return words[1] if len(words) > 1 and words[0] == "OpenBLAS" else None


def _entry(user_api, internal_api, prefix, filepath, num_threads, merged, reason, active, budget,
           version=None, **extra):
    e = {"user_api": user_api, "internal_api": internal_api, "prefix": prefix, "filepath": filepath,
         "version": version, "num_threads": num_threads, "merged": merged, "reason": reason,
         "pool": "poolshim" if merged else filepath, "active_threads": active, "budget": budget}
    e.update(extra)
    return e


def _prefix(path):
    return os.path.basename(path).split(".")[0]


def _shim_entry(st, workers):
    if not st["loaded"]:
        return _entry("poolshim", "poolshim", "libpoolshim", None, None, False,
                      "libpoolshim is not loaded in this process: every pool below runs on its own "
                      "(start it with `poolshim run -- CMD` or `python -m poolshim run -- CMD`)",
                      0, None, version=st["module_version"], loaded=False)
    reason = "the one process-wide pool"
    if st.get("degraded"):
        reason += "; degraded, calls run serially: %s" % st.get("degraded_reason")
    return _entry("poolshim", "poolshim", "libpoolshim", st["library"], st["pool_size"], True, reason,
                  workers, st["budget"], version=st["version"], loaded=True,
                  pool_started=st["pool_started"], live_requests=st["live_requests"])


def _surface_entries(st, workers, surface, user_api, markers):
    """One entry per module carrying a copy of the surface. With the shim: from its registry (the
    verdicts of shim/reach); without: each mapped module that defines the surface's entry point."""
    out = []
    if st["loaded"]:
        disabled = surface in (st["disabled_surfaces"] or [])
        for m in st["modules"]:
            verdict = m[surface]
            if verdict == "absent" or (surface == "pthreadpool" and verdict == "redirected"):
                continue  # redirected pthreadpool copies are part of the aggregate entry
            merged = verdict == "redirected" and not disabled
            if merged:
                reason = "its calls resolve to the shim: it runs on the one pool"
            elif disabled:
                reason = "POOLSHIM_DISABLE=%s: its calls pass through to its own pool" % surface
            else:
                reason = "unreachable by the preload: %s" % (m["reason"] or "see poolshim audit")
            out.append(_entry(user_api, surface, _prefix(m["path"]), m["path"],
                              st["pool_size"] if merged else None, merged, reason,
                              workers if merged else None, st["budget"] if merged else None))
        return out
    for path in _runtimes.mapped_files():
        if ".so" not in os.path.basename(path):
            continue
        lib = _open_loaded(path)
        found = lib is not None and _defines(lib, path, markers)
        _close(lib)
        if not found:
            continue
        out.append(_entry(user_api, surface, _prefix(path), path, None, False,
                          "libpoolshim is not loaded: this copy runs its own pool (its size is not "
                          "read: asking would start it)", None, None))
    return out


def _pthreadpool_aggregate(st, workers):
    disabled = "pthreadpool" in (st["disabled_surfaces"] or [])
    clients = [m["path"] for m in st["modules"] if m["pthreadpool"] == "redirected"]
    if disabled:
        return _entry("pthreadpool", "pthreadpool", "libpoolshim", st["library"], None, False,
                      "POOLSHIM_DISABLE=pthreadpool: handles pass through to libpthreadpool.so.0's own "
                      "pools", None, None, modules=clients)
    return _entry("pthreadpool", "pthreadpool", "libpoolshim", st["library"], st["pool_size"], True,
                  "every pthreadpool handle (pthreadpool_create) is a view of the one pool",
                  workers, st["budget"], modules=clients)


def _runtime_entries(st, workers):
    out = []
    shim_lib = _open_loaded(st["library"]) if st["loaded"] else None
    shim_openmp = shim_lib is not None and _defines(shim_lib, st["library"], (_SHIM_OPENMP_MARKER,))
    _close(shim_lib)
    # The native runtime is the default; any other value than "shim" forwards (as the shim reads it).
    openmp_native = (shim_openmp and os.environ.get("POOLSHIM_OPENMP", "shim") == "shim"
                     and "openmp" not in (st["disabled_surfaces"] or []))
    for rt in _runtimes.loaded_runtimes():
        api = next((a for a in _RUNTIME_APIS if rt["name"].startswith(a[0])), None)
        if api is None:
            continue
        _, user_api, internal_api, getter = api
        lib = _open_loaded(rt["path"])
        num = _call_int(lib, getter) if lib is not None and getter else None
        version = _openblas_version(lib) if lib is not None and internal_api == "openblas" else None
        _close(lib)
        # LLVM's libomp and Intel's libiomp5 serve the __kmpc ABI, which the shim passes on to
        # them unless POOLSHIM_KMPC=shim and every __kmpc call of the process is native (decided
        # inside the process; its log says which): their pool is theirs.
        llvm = user_api == "openmp" and "libgomp" not in rt["name"]
        if llvm and shim_openmp:
            merged, reason = False, ("%s keeps its own pool (the shim passes LLVM OpenMP's __kmpc calls "
                                     "on to it; with POOLSHIM_KMPC=shim they run on the one pool where "
                                     "every one the process makes is native, which the shim's log says)"
                                     % _prefix(rt["path"]))
        elif user_api == "openmp" and openmp_native:
            merged, reason = True, "the shim's OpenMP surface runs its parallel regions on the one pool"
        elif user_api == "openmp" and shim_openmp:
            merged, reason = False, ("%s keeps its own pool (the shim's OpenMP surface forwards to it; "
                                     "POOLSHIM_OPENMP=forward is set)" % _prefix(rt["path"]))
        elif user_api == "openmp":
            merged, reason = False, "%s keeps its own pool (the shim exports no OpenMP surface)" % _prefix(rt["path"])
        else:
            merged, reason = False, "%s keeps its own pool (no legacy ABI the shim takes over)" % rt["name"]
        if not merged and rt["env_var"]:
            reason += "; bounded by %s=%s" % (rt["env_var"], rt["value"] if rt["value"] is not None else "(unset)")
        out.append(_entry(user_api, internal_api, _prefix(rt["path"]), rt["path"], num, merged, reason,
                          workers if merged else None, st["budget"] if merged else None, version=version,
                          env_var=rt["env_var"], env_value=rt["value"]))
    return out


def threadpool_info():
    """Every thread pool of this process as a list of dicts (see the module's comment)."""
    st = _native.info()
    workers = worker_threads() if st["loaded"] else 0
    out = [_shim_entry(st, workers)]
    out += _surface_entries(st, workers, "executorch", "executorch", _EXECUTORCH_MARKERS)
    if st["loaded"]:
        out.append(_pthreadpool_aggregate(st, workers))
    out += _surface_entries(st, workers, "pthreadpool", "pthreadpool", _PTHREADPOOL_MARKERS)
    out += _runtime_entries(st, workers)
    return out


_COLUMNS = (("user_api", "api"), ("internal_api", "internal"), ("merged", "merged"),
            ("num_threads", "threads"), ("active_threads", "active"), ("budget", "budget"),
            ("filepath", "file"))


def format_table(pools):
    """The pools as a text table, one row each, then each row's reason."""
    def cell(v):
        return "-" if v is None else ("yes" if v is True else "no" if v is False else str(v))
    rows = [[h for _, h in _COLUMNS]] + [[cell(p[k]) for k, _ in _COLUMNS] for p in pools]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS) - 1)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(len(widths))) + "  " + r[-1] for r in rows]
    lines.append("")
    lines += ["%d. %s %s: %s" % (i + 1, p["internal_api"], cell(p["filepath"]), p["reason"])
              for i, p in enumerate(pools)]
    return "\n".join(lines) + "\n"
