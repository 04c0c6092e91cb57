"""python -m poolshim {run,info [--pools] [--json],--version}"""
import json
import sys

from . import _pools, _run, info
from ._version import __version__

HELP = """usage: python -m poolshim run [--threads N] [--log LEVEL] [--group NAME] [--library PATH]
                              [--no-runtime-env] [--] CMD [ARGS...]
       python -m poolshim info      what the shim in THIS interpreter reports (JSON)
       python -m poolshim info --pools [--json]
                                    every thread pool of THIS interpreter (threadpool_info()):
                                    a table, or JSON
       python -m poolshim --version

`run` starts CMD with libpoolshim.so preloaded; `python -m poolshim run --help` for details.
"""


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        (sys.stdout if argv else sys.stderr).write(HELP)
        return 0 if argv else 2
    if argv[0] == "--version":
        print("poolshim %s" % __version__)
        return 0
    if argv[0] == "run":
        return _run.main(argv[1:])
    if argv[0] == "info":
        opts = set(argv[1:])
        if not opts <= {"--pools", "--json"}:
            sys.stderr.write("python -m poolshim info: unknown option %s\n\n%s" % (sorted(opts - {"--pools", "--json"})[0], HELP))
            return 2
        if "--pools" not in opts:
            print(json.dumps(info(), indent=2))
        elif "--json" in opts:
            print(json.dumps(_pools.threadpool_info(), indent=2))
        else:
            sys.stdout.write(_pools.format_table(_pools.threadpool_info()))
        return 0
    sys.stderr.write("python -m poolshim: unknown command %r\n\n%s" % (argv[0], HELP))
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
