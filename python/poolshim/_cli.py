"""The `poolshim` console script of the wheel (and of any install with the C++ command next to
this module).

`poolshim run ...` is `python -m poolshim run ...` (pure Python: it preloads the library bundled
with this module first). Every other subcommand (audit, info, --version, help) is the C++
command bundled with this module, executed in place of this process; when it is missing, the
pure-Python `python -m poolshim` serves what it can (run, info, --version)."""
import os
import sys

from . import __main__ as _pymain
from . import _run


def command_path():
    """The C++ `poolshim` command belonging to this module, or None."""
    try:
        from ._build import COMMAND_FROM_MODULE
    except ImportError:
        return None
    if not COMMAND_FROM_MODULE:
        return None
    path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), COMMAND_FROM_MODULE))
    return path if os.access(path, os.X_OK) else None


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:
        return _run.main(argv[1:])
    cmd = command_path()
    if cmd is None:
        return _pymain.main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(cmd, [cmd] + argv)
    except OSError as e:
        sys.stderr.write("poolshim: cannot execute %s (%s); falling back to python -m poolshim\n" % (cmd, e.strerror))
        return _pymain.main(argv)


if __name__ == "__main__":
    sys.exit(main())
