"""Other runtimes' thread pools (not merged by the shim) among the modules of this process.

The same table as the library's load-time report (shim/report/runtimes.cpp): each is named with the
environment variable that bounds it."""
import os
import re

# (file-name prefix, name, variable): the same rows as shim/report/runtimes.cpp.
RUNTIMES = (
    ("libgomp", "OpenMP (GNU libgomp)", "OMP_NUM_THREADS"),
    ("libiomp5", "OpenMP (Intel libiomp5)", "OMP_NUM_THREADS"),
    ("libomp", "OpenMP (LLVM libomp)", "OMP_NUM_THREADS"),
    ("libopenblas", "OpenBLAS", "OPENBLAS_NUM_THREADS"),
    ("libscipy_openblas", "OpenBLAS (numpy/scipy wheels)", "OPENBLAS_NUM_THREADS"),
    ("libmkl_", "Intel MKL", "MKL_NUM_THREADS"),
    ("libtbb", "oneTBB", None),
)
BOUNDING_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def runtime_of(path):
    """(name, variable) of the runtime a module file belongs to, or None."""
    base = os.path.basename(path)
    for prefix, name, var in RUNTIMES:
        if not base.startswith(prefix):
            continue
        rest = base[len(prefix):]
        if prefix.endswith("_") or re.match(r"[.\-0-9]", rest):
            return name, var
    return None


def mapped_files(maps="/proc/self/maps"):
    """Every file mapped into this process, each once, in map order."""
    seen, out = set(), []
    try:
        with open(maps, "rb") as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) < 6 or parts[4] == b"0":
                    continue
                path = os.fsdecode(parts[5].rstrip(b"\n"))
                if path.endswith(" (deleted)"):
                    path = path[: -len(" (deleted)")]
                if path.startswith("/") and path not in seen:
                    seen.add(path)
                    out.append(path)
    except OSError:
        pass
    return out


def loaded_runtimes():
    out = []
    for path in mapped_files():
        rt = runtime_of(path)
        if rt is None:
            continue
        name, var = rt
        out.append({"path": path, "name": name, "env_var": var,
                    "value": os.environ.get(var) if var else None, "merged": False})
    return out
