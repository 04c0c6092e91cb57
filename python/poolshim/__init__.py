"""poolshim from Python: the one process-wide CPU thread pool, seen and steered from the interpreter.

Pure Python (ctypes); nothing is compiled. The library itself is loaded by the dynamic linker
(``LD_PRELOAD=libpoolshim.so`` or ``python -m poolshim run -- CMD``), never by this module:

    >>> import poolshim
    >>> poolshim.info()["loaded"]          # is libpoolshim in this process?
    >>> poolshim.threadpool_info()         # every pool here, threadpoolctl's shape + "merged"
    >>> with poolshim.limit(2):            # cap the budget for a block (threadpoolctl-style)
    ...     model(x)
    >>> with poolshim.threadpool_limits(2):  # the same, with threadpoolctl's shape
    ...     model(x)

With a threadpoolctl that takes custom controllers (threadpoolctl.register), ``import poolshim``
registers one for the shim's pool (see _threadpoolctl.py), so ``threadpoolctl.threadpool_info()``
lists it and ``threadpoolctl.threadpool_limits(n)`` caps it.

``python -m poolshim run [--threads N] [--log LEVEL] [--group NAME] -- CMD ARGS...`` runs CMD with
the library preloaded (see ``python -m poolshim --help``).
"""
from ._native import PoolshimNotLoaded, info, limit, loaded, library_path, other_runtimes
from ._pools import threadpool_info
from ._threadpoolctl import register_threadpoolctl, threadpool_limits
from ._threadpoolctl import _register_at_import
from ._version import __version__

__all__ = ["info", "threadpool_info", "limit", "threadpool_limits", "register_threadpoolctl", "loaded",
           "library_path", "other_runtimes", "PoolshimNotLoaded", "__version__"]

_register_at_import()
