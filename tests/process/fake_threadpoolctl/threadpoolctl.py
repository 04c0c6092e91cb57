"""A stand-in for threadpoolctl 3.6 in process.python.threadpoolctl_fake: only its interface for
third-party controllers, written for the test (the real module is not installable here: Debian 12
ships 3.1.0, which has no register(), and there is no package index).

What it keeps of threadpoolctl 3.6's documented interface, so that poolshim's controller is
exercised as the real one would drive it:
- LibController(ABC): class attributes user_api, internal_api, filename_prefixes and optionally
  check_symbols; keyword-only __init__(filepath=, prefix=, parent=) that opens
  dynlib = ctypes.CDLL(filepath, mode=os.RTLD_NOLOAD), then sets version = get_version() and calls
  set_additional_attributes(); abstract get_num_threads(), set_num_threads(n), get_version();
  info() = user_api, internal_api, num_threads and every other public attribute.
- register(controller_class): appends it to the controllers looked for, its user_api to the APIs.
- threadpool_info(): the info() of a controller per loaded file (from /proc/self/maps) whose
  basename starts with one of its prefixes and, when check_symbols is set, defines one of them.
- threadpool_limits(limits=None, user_api=None): an int applies to every user_api (or the one
  named), a dict maps user_api or prefix to a count; applied when made; as a context manager it
  calls set_num_threads(original num_threads) on exit (restore_original_limits()).
"""
import ctypes
import os
from abc import ABC, abstractmethod

__version__ = "3.6.0+poolshim-test-fake"

_CONTROLLERS = []
_USER_APIS = []


class LibController(ABC):
    def __init__(self, *, filepath=None, prefix=None, parent=None):
        self.parent = parent
        self.prefix = prefix
        self.filepath = filepath
        self.dynlib = ctypes.CDLL(filepath, mode=os.RTLD_NOLOAD)
        self.version = self.get_version()
        self.set_additional_attributes()

    def info(self):
        hidden = ("dynlib", "parent")
        out = {"user_api": self.user_api, "internal_api": self.internal_api, "num_threads": self.num_threads}
        out.update({k: v for k, v in vars(self).items() if k not in hidden and not k.startswith("_")})
        return out

    def set_additional_attributes(self):
        pass

    @property
    def num_threads(self):
        return self.get_num_threads()

    @abstractmethod
    def get_num_threads(self):
        pass

    @abstractmethod
    def set_num_threads(self, num_threads):
        pass

    @abstractmethod
    def get_version(self):
        pass


def register(controller):
    _CONTROLLERS.append(controller)
    _USER_APIS.append(controller.user_api)


def _controllers():
    paths = []
    with open("/proc/self/maps") as f:
        for line in f:
            at = line.find("/")
            if at >= 0 and ".so" in line:
                path = os.path.realpath(line[at:].rstrip("\n"))
                if path not in paths and os.path.exists(path):
                    paths.append(path)
    found = []
    for path in paths:
        name = os.path.basename(path).lower()
        for cls in _CONTROLLERS:
            prefix = next((p for p in cls.filename_prefixes if name.startswith(p)), None)
            if prefix is None:
                continue
            c = cls(filepath=path, prefix=prefix, parent=None)
            if not hasattr(cls, "check_symbols") or any(hasattr(c.dynlib, s) for s in cls.check_symbols):
                found.append(c)
    return found


def threadpool_info():
    return [c.info() for c in _controllers()]


class threadpool_limits:  # noqa: N801
    def __init__(self, limits=None, user_api=None):
        self._controllers = _controllers()
        self._original = [c.info() for c in self._controllers]
        if isinstance(limits, int):
            limits = {api: limits for api in ([user_api] if user_api else _USER_APIS)}
        for c in self._controllers if limits else ():
            n = limits.get(c.prefix, limits.get(c.user_api))
            if n is not None:
                c.set_num_threads(n)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore_original_limits()

    def restore_original_limits(self):
        for c, original in zip(self._controllers, self._original):
            c.set_num_threads(original["num_threads"])
