"""The shim's pool in threadpoolctl's terms.

Two ways, by what the installed threadpoolctl can do:

- It takes custom controllers (``threadpoolctl.register`` and ``threadpoolctl.LibController``,
  newer releases such as 3.6): ``register_threadpoolctl()`` registers ``PoolshimController``
  (user_api and internal_api ``"poolshim"``, prefix ``"libpoolshim"``), so that
  ``threadpoolctl.threadpool_info()`` lists the one pool (num_threads: the budget in force) and
  ``threadpoolctl.threadpool_limits(2)`` caps it through ``poolshim_set_budget()``. ``import
  poolshim`` registers it when threadpoolctl is imported already, or when the shim is loaded and
  threadpoolctl is installed (importing it then: it sets KMP_DUPLICATE_LIB_OK, as it always does).
- It does not (Debian 12's 3.1.0), or is not installed: ``poolshim.threadpool_limits(n)`` is the
  same cap with threadpoolctl's shape (applied when made, a context manager that restores on exit,
  ``restore_original_limits()``, ``get_original_num_threads()``, ``wrap()`` as a decorator). It is
  there in both cases.

Without the shim in the process, the controller matches no file (threadpoolctl lists nothing for
it) and ``threadpool_limits`` does nothing, as threadpoolctl does for a library not loaded.
"""
import functools
import importlib.util
import sys

from . import _native

USER_API = "poolshim"
PREFIX = "libpoolshim"

_registered = False


def _cap_for(threads, computed):
    """The poolshim_set_budget() argument that gives `threads`: a cap at or above the computed
    budget caps nothing, so it is lifted (0), and restoring threadpoolctl's saved num_threads then
    leaves no cap behind."""
    return 0 if computed is not None and threads >= computed else threads


def _controller_class(threadpoolctl):
    class PoolshimController(threadpoolctl.LibController):
        """threadpoolctl's controller of the shim's one process-wide pool (through the handle
        threadpoolctl opened on the loaded libpoolshim, RTLD_NOLOAD)."""

        user_api = USER_API
        internal_api = USER_API
        filename_prefixes = (PREFIX,)
        check_symbols = ("poolshim_get_info", "poolshim_set_budget")

        def get_num_threads(self):
            return _native.budgets_of(self.dynlib, self.filepath)[0]

        def set_num_threads(self, num_threads):
            computed = _native.budgets_of(self.dynlib, self.filepath)[1]
            return _native.set_budget_of(self.dynlib, _cap_for(int(num_threads), computed), self.filepath)

        def get_version(self):
            return _native.version_of(self.dynlib, self.filepath)

        def set_additional_attributes(self):
            self.merged = True
            self.reason = "the one process-wide pool"

    return PoolshimController


def threadpoolctl_supports_controllers(threadpoolctl):
    """True when this threadpoolctl module takes custom controllers."""
    return callable(getattr(threadpoolctl, "register", None)) and isinstance(
        getattr(threadpoolctl, "LibController", None), type)


def register_threadpoolctl():
    """Registers PoolshimController with the installed threadpoolctl (once). True when it is
    registered (now or before); False when threadpoolctl is not installed or cannot take a
    controller (then use poolshim.threadpool_limits)."""
    global _registered
    if _registered:
        return True
    try:
        import threadpoolctl
    except ImportError:
        return False
    if not threadpoolctl_supports_controllers(threadpoolctl):
        return False
    threadpoolctl.register(_controller_class(threadpoolctl))
    _registered = True
    return True


def _register_at_import():
    """import poolshim: register when threadpoolctl is imported already, or when the shim is
    loaded here and threadpoolctl is installed. Never raises."""
    try:
        if "threadpoolctl" in sys.modules or (
                _native.loaded() and importlib.util.find_spec("threadpoolctl") is not None):
            register_threadpoolctl()
    except Exception:  # noqa: BLE001 - an odd threadpoolctl must not break import poolshim
        pass


class threadpool_limits:  # noqa: N801 - threadpoolctl's name
    """Caps the shim's pool with threadpoolctl.threadpool_limits' shape.

    limits: None (nothing), a whole number >= 1, or a dict whose "poolshim" (user_api) or
    "libpoolshim" (prefix) key gives it (other keys are not ours and are left alone). user_api:
    None or "poolshim". Applied when the object is made; as a context manager it restores the cap
    in force before (none, or an outer limit) on exit, also when the block raises."""

    def __init__(self, limits=None, user_api=None):
        self._threads = self._check_params(limits, user_api)
        self._original = None  # (previous cap, budget in force before) once applied
        self._apply()

    @staticmethod
    def _check_params(limits, user_api):
        if user_api not in (None, USER_API):
            raise ValueError("user_api must be either in %r or None. Got %r instead." % ([USER_API], user_api))
        if isinstance(limits, dict):
            limits = limits.get(PREFIX, limits.get(USER_API))
        if limits is None:
            return None
        if isinstance(limits, bool) or not isinstance(limits, int) or limits < 1:
            raise ValueError("poolshim.threadpool_limits() wants a whole number of threads >= 1, not %r" % (limits,))
        return limits

    def _apply(self):
        found = _native._find()
        if found is None or self._threads is None:
            return
        lib, path = found
        budget, computed, cap = _native.budgets_of(lib, path)
        self._original = (cap or 0, budget)
        _native.set_budget_of(lib, _cap_for(self._threads, computed), path)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore_original_limits()

    def restore_original_limits(self):
        """Puts back the cap in force before (once)."""
        if self._original is None:
            return
        lib, path = _native._find()
        _native.set_budget_of(lib, self._original[0], path)
        self._original = None

    unregister = restore_original_limits

    def get_original_num_threads(self):
        """{"poolshim": the budget in force before} (None when nothing was applied)."""
        return {USER_API: self._original[1] if self._original is not None else None}

    @classmethod
    def wrap(cls, limits=None, user_api=None):
        """A decorator: the limits are applied around each call."""
        cls._check_params(limits, user_api)

        def decorate(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                with cls(limits, user_api):
                    return fn(*args, **kwargs)
            return wrapper
        return decorate
