"""ctypes view of the libpoolshim loaded in this process (include/poolshim/poolshim.h).

The library is looked up, never loaded: in the global symbol scope (LD_PRELOAD, a host linked
against it), else among the files mapped into the process with RTLD_NOLOAD. When it is not there,
info() says so plainly and limit() raises PoolshimNotLoaded.

struct poolshim_info is versioned by struct_size: this module passes its full size and fills the
struct with a marker first, so a field an older library did not write reads as None instead of
garbage."""
import contextlib
import ctypes
import os
import threading

from . import _runtimes
from ._version import __version__

_MARK = 0xA5

_SURFACE_BITS = (("executorch", 1), ("pthreadpool", 2), ("openmp", 4))
_LOG_LEVELS = ("off", "warn", "info", "debug")
_VERDICTS = {0: "absent", 1: "redirected", 2: "unreachable"}


class _Info(ctypes.Structure):
    # Pointers are read as integers first: a field still holding the marker was not written.
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("version", ctypes.c_uint32),
        ("budget", ctypes.c_size_t),
        ("budget_source", ctypes.c_size_t),
        ("pool_size", ctypes.c_size_t),
        ("pool_started", ctypes.c_int),
        ("live_requests", ctypes.c_size_t),
        ("disabled_surfaces", ctypes.c_uint32),
        ("log_level", ctypes.c_int),
        # version 0.2
        ("computed_budget", ctypes.c_size_t),
        ("budget_cap", ctypes.c_size_t),
        ("degraded", ctypes.c_int),
        ("degraded_reason", ctypes.c_size_t),
        ("group", ctypes.c_size_t),
        ("group_members", ctypes.c_size_t),
        ("group_busy", ctypes.c_size_t),
        # version 0.3
        ("workers_started", ctypes.c_size_t),
        ("workers_wanted", ctypes.c_size_t),
        # version 0.4
        ("team_threads", ctypes.c_size_t),
    ]


class _Module(ctypes.Structure):
    _fields_ = [
        ("path", ctypes.c_char_p),
        ("executorch", ctypes.c_int),
        ("pthreadpool", ctypes.c_int),
        ("reason", ctypes.c_char_p),
    ]


class PoolshimNotLoaded(RuntimeError):
    """libpoolshim is not loaded in this process (or lacks the function asked for)."""


_lock = threading.Lock()
_cached = None  # (CDLL, path) once found; the library is never unloaded (-z nodelete)


def _path_of(symbol_addr):
    """The mapped file that holds an address (from /proc/self/maps), or ''."""
    try:
        with open("/proc/self/maps", "rb") as f:
            for line in f:
                parts = line.split(None, 5)
                lo, hi = (int(x, 16) for x in parts[0].split(b"-"))
                if lo <= symbol_addr < hi and len(parts) == 6:
                    return os.fsdecode(parts[5].rstrip(b"\n"))
    except (OSError, ValueError):
        pass
    return ""


def _find():
    """(CDLL, path) of the loaded libpoolshim, or None. Never loads anything."""
    global _cached
    with _lock:
        if _cached is not None:
            return _cached
        candidates = [None]  # the global scope: LD_PRELOAD, or a host linked against it
        candidates += [p for p in _runtimes.mapped_files() if "libpoolshim" in os.path.basename(p)]
        for c in candidates:
            try:
                lib = ctypes.CDLL(c, mode=os.RTLD_NOLOAD | os.RTLD_LAZY) if c else ctypes.CDLL(None)
                fn = lib.poolshim_get_info
            except (OSError, AttributeError):
                continue
            path = _path_of(ctypes.cast(fn, ctypes.c_void_p).value or 0) or (c or "")
            _cached = (lib, path)
            return _cached
        return None


def loaded():
    """True when libpoolshim is loaded in this process."""
    return _find() is not None


def library_path():
    """The file of the loaded libpoolshim, or None."""
    found = _find()
    return found[1] if found else None


def other_runtimes():
    """Other runtimes' pools loaded here (OpenMP, OpenBLAS, MKL, oneTBB): not merged by the shim,
    each with the variable that bounds it and its value in this process."""
    return _runtimes.loaded_runtimes()


def _written(info, name):
    field = getattr(_Info, name)
    raw = ctypes.string_at(ctypes.addressof(info) + field.offset, field.size)
    return raw != bytes([_MARK]) * field.size


def _text(info, name):
    if not _written(info, name):
        return None
    addr = getattr(info, name)
    return ctypes.string_at(addr).decode("utf-8", "replace") if addr else ""


def _modules(lib):
    fn = lib.poolshim_get_modules
    fn.restype = ctypes.c_size_t
    fn.argtypes = [ctypes.POINTER(_Module), ctypes.c_size_t]
    n = fn(None, 0)
    while True:
        buf = (_Module * max(n, 1))()
        got = fn(buf, n)
        if got <= n:
            break
        n = got  # modules loaded meanwhile: ask again with room for them
    out = []
    for m in buf[:got]:
        out.append({
            "path": (m.path or b"").decode("utf-8", "replace") or "(main executable)",
            "executorch": _VERDICTS.get(m.executorch, str(m.executorch)),
            "pthreadpool": _VERDICTS.get(m.pthreadpool, str(m.pthreadpool)),
            "reason": (m.reason or b"").decode("utf-8", "replace"),
        })
    return out


def _get_info(lib, path):
    """poolshim_get_info() of lib, the struct filled with the marker first (see the module)."""
    st = _Info()
    ctypes.memset(ctypes.addressof(st), _MARK, ctypes.sizeof(st))
    st.struct_size = ctypes.sizeof(st)
    fn = lib.poolshim_get_info
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.POINTER(_Info)]
    if fn(ctypes.byref(st)) != 0:
        raise PoolshimNotLoaded("poolshim_get_info refused the struct (library at %s)" % path)
    return st


def _num(st, name):
    return getattr(st, name) if _written(st, name) else None


def budgets_of(lib, path=""):
    """(budget in force, computed budget, cap: 0 for none) of the libpoolshim handle lib; a field
    an older library does not fill is None."""
    st = _get_info(lib, path)
    return _num(st, "budget"), _num(st, "computed_budget"), _num(st, "budget_cap")


def version_of(lib, path=""):
    """The library's version "X.Y" (poolshim_info.version), or None."""
    ver = _num(_get_info(lib, path), "version")
    return "%d.%d" % (ver >> 16, ver & 0xFFFF) if ver is not None else None


def set_budget_of(lib, threads, path=""):
    """poolshim_set_budget(threads) on the handle lib (0 lifts the cap); the budget in force."""
    try:
        fn = lib.poolshim_set_budget
    except AttributeError:
        raise PoolshimNotLoaded("the loaded libpoolshim (%s) has no poolshim_set_budget; it predates the cap API"
                                % path) from None
    fn.restype = ctypes.c_size_t
    fn.argtypes = [ctypes.c_size_t]
    return fn(threads)


def info():
    """A dict describing the shim in this process.

    Not loaded: {"loaded": False, "message": ..., "other_runtimes": [...]}.
    Loaded: the budget and its source, the computed budget and the cap, the pool size and whether
    it started, live requests, disabled surfaces, log level, degraded state, the group, the
    modules with their verdicts, and the other runtimes' pools. A field the loaded library does
    not report is None."""
    found = _find()
    if found is None:
        return {
            "loaded": False,
            "message": "libpoolshim is not loaded in this process: start it with "
                       "`python -m poolshim run -- CMD` or LD_PRELOAD=libpoolshim.so",
            "module_version": __version__,
            "other_runtimes": other_runtimes(),
        }
    lib, path = found
    st = _get_info(lib, path)

    def num(name):
        return _num(st, name)

    ver = num("version")
    disabled = num("disabled_surfaces")
    level = num("log_level")
    degraded = num("degraded")
    started = num("pool_started")
    return {
        "loaded": True,
        "library": path,
        "version": "%d.%d" % (ver >> 16, ver & 0xFFFF) if ver is not None else None,
        "module_version": __version__,
        "budget": num("budget"),
        "budget_source": _text(st, "budget_source"),
        "computed_budget": num("computed_budget"),
        "budget_cap": num("budget_cap"),
        "pool_size": num("pool_size"),
        "pool_started": bool(started) if started is not None else None,
        "live_requests": num("live_requests"),
        "disabled_surfaces": [n for n, bit in _SURFACE_BITS if disabled & bit] if disabled is not None else None,
        "log_level": _LOG_LEVELS[level] if level is not None and 0 <= level < len(_LOG_LEVELS) else level,
        "degraded": bool(degraded) if degraded is not None else None,
        "degraded_reason": _text(st, "degraded_reason"),
        "group": _text(st, "group"),
        "group_members": num("group_members"),
        "group_busy": num("group_busy"),
        "workers_started": num("workers_started"),
        "workers_wanted": num("workers_wanted"),
        "team_threads": num("team_threads"),
        "modules": _modules(lib),
        "other_runtimes": other_runtimes(),
    }


def _set_budget():
    found = _find()
    if found is None:
        raise PoolshimNotLoaded("poolshim.limit(): libpoolshim is not loaded in this process; start it with "
                                "`python -m poolshim run -- CMD` or LD_PRELOAD=libpoolshim.so")
    lib, path = found
    return lambda threads: set_budget_of(lib, threads, path)


def _current_cap():
    st = info()
    cap = st.get("budget_cap")
    return cap if cap is not None else 0


@contextlib.contextmanager
def limit(threads):
    """Cap the thread budget of the whole process for the duration of a with-block.

    Every top-level parallel call that starts inside the block uses at most
    min(threads, computed budget) threads (poolshim_set_budget()); on exit the cap in force
    before the block is restored (none, or an outer limit()). Yields the budget in force.
    Raises PoolshimNotLoaded when the shim is not loaded, ValueError for a bad count."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError("poolshim.limit() wants a whole number of threads >= 1, not %r" % (threads,))
    fn = _set_budget()
    previous = _current_cap()
    in_force = fn(threads)
    try:
        yield in_force
    finally:
        fn(previous)  # 0 removes the cap
