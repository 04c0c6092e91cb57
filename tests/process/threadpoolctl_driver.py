"""poolshim's place in threadpoolctl (python/poolshim/_threadpoolctl.py), in a real interpreter
with the shim preloaded (POOLSHIM_NUM_THREADS=2).

usage: threadpoolctl_driver.py CHECK --pythonpath DIR --shim LIB [--python PY]
CHECK: controller | controller-fake | limits
  controller       the installed threadpoolctl takes poolshim's controller: threadpool_info()
                   lists the one pool (num_threads 2), threadpool_limits(1) caps it (the budget in
                   force reads 1 inside, 2 and no cap after), whichever of threadpoolctl and
                   poolshim is imported first. Skipped (77) when threadpoolctl is not installed,
                   or cannot take a controller (Debian 12's 3.1.0 has no register()).
  controller-fake  the same against tests/process/fake_threadpoolctl (threadpoolctl 3.6's
                   interface for controllers: LibController, register; see its docstring), since
                   no threadpoolctl with register() can be installed here.
  limits           poolshim.threadpool_limits, threadpoolctl's shape where it cannot take a
                   controller: applied when made, restored on exit and on an exception, nested
                   under poolshim.limit(), the dict form, wrap(), get_original_num_threads(),
                   a ValueError for another user_api or a bad count, nothing done without the shim;
                   beside an installed threadpoolctl without register(), register_threadpoolctl()
                   says False and threadpoolctl lists no poolshim row.
"""
import argparse
import json
import os
import sys

import proc_util
from proc_util import check, clean_env, main, require, skip

FAKE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_threadpoolctl")

PROBE = r"""
import json, sys
try:
    import threadpoolctl
except ImportError:
    print(json.dumps({"installed": False})); sys.exit(0)
import poolshim
print(json.dumps({"installed": True, "version": getattr(threadpoolctl, "__version__", "?"),
                  "register": callable(getattr(threadpoolctl, "register", None)),
                  "controller_class": isinstance(getattr(threadpoolctl, "LibController", None), type)}))
"""

# {first} imports first: the registration must happen in both orders under the shim.
CONTROLLER = r"""
import json, {first}, {second}
import poolshim, threadpoolctl
out = {{"at_import": poolshim._threadpoolctl._registered, "registered": poolshim.register_threadpoolctl()}}
rows = [r for r in threadpoolctl.threadpool_info() if r["user_api"] == "poolshim"]
out["rows"] = rows
with threadpoolctl.threadpool_limits(1):
    out["inside"] = poolshim.info()["budget"]
    out["inside_row"] = [r["num_threads"] for r in threadpoolctl.threadpool_info() if r["user_api"] == "poolshim"]
i = poolshim.info()
out["after"], out["cap_after"] = i["budget"], i["budget_cap"]
with threadpoolctl.threadpool_limits({{"poolshim": 1}}):
    out["dict_inside"] = poolshim.info()["budget"]
out["library"], out["lib_version"] = poolshim.library_path(), poolshim.info()["version"]
print(json.dumps(out))
"""

LIMITS = r"""
import json, poolshim
out = {}
with poolshim.threadpool_limits(1) as lim:
    out["inside"] = poolshim.info()["budget"]
    out["original"] = lim.get_original_num_threads()
    with poolshim.limit(2):
        out["nested_limit"] = poolshim.info()["budget"]
    out["after_nested"] = poolshim.info()["budget"]
i = poolshim.info()
out["after"], out["cap_after"] = i["budget"], i["budget_cap"]
with poolshim.limit(1):
    with poolshim.threadpool_limits(2):
        out["override"] = poolshim.info()["budget"]
    out["outer_back"] = poolshim.info()["budget"]
lim = poolshim.threadpool_limits(limits={"poolshim": 1, "openmp": 7})
out["called"] = poolshim.info()["budget"]
lim.restore_original_limits()
out["restored"] = poolshim.info()["budget"]
try:
    with poolshim.threadpool_limits(1):
        raise KeyError("x")
except KeyError:
    out["after_exception"] = poolshim.info()["budget"]
@poolshim.threadpool_limits.wrap(1)
def wrapped():
    return poolshim.info()["budget"]
out["wrapped"], out["after_wrapped"] = wrapped(), poolshim.info()["budget"]
with poolshim.threadpool_limits(None):
    out["none"] = poolshim.info()["budget"]
errors = []
for bad in ((1, "blas"), (0, None), (True, None), ("2", None)):
    try:
        poolshim.threadpool_limits(*bad)
    except ValueError:
        errors.append(repr(bad))
out["errors"] = errors
try:
    import threadpoolctl
    out["tpc"] = {"version": getattr(threadpoolctl, "__version__", "?"), "registered": poolshim.register_threadpoolctl(),
                  "rows": [r["user_api"] for r in threadpoolctl.threadpool_info()]}
except ImportError:
    out["tpc"] = None
print(json.dumps(out))
"""

UNLOADED = r"""
import json, poolshim
with poolshim.threadpool_limits(1) as lim:
    out = {"loaded": poolshim.info()["loaded"], "original": lim.get_original_num_threads()}
print(json.dumps(out))
"""


def py_json(a, code, env, what):
    r = proc_util.run([a.python, "-c", code], env, timeout=120)
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        sys.stdout.write(f"{what}: exit {r.returncode}\nstdout: {r.stdout[-2000:]}\nstderr: {r.stderr[-2000:]}\n")
        return None


def shim_env(a, *pythonpath):
    return clean_env(PYTHONPATH=os.pathsep.join(list(pythonpath) + [a.pythonpath]),
                     LD_PRELOAD=os.path.realpath(a.shim), POOLSHIM_NUM_THREADS="2")


def check_controller(a, env, what):
    for first, second in (("threadpoolctl", "poolshim"), ("poolshim", "threadpoolctl")):
        w = f"{what}, {first} imported first"
        out = py_json(a, CONTROLLER.format(first=first, second=second), env, w)
        if not check(out is not None, f"{w}: the probe ran"):
            continue
        check(out["at_import"] and out["registered"], f"{w}: import poolshim registered the controller "
              f"({out['at_import']}; register_threadpoolctl(): {out['registered']})")
        rows = out["rows"]
        check(len(rows) == 1 and rows[0]["internal_api"] == "poolshim" and rows[0]["prefix"] == "libpoolshim"
              and os.path.realpath(rows[0]["filepath"]) == os.path.realpath(a.shim) and rows[0]["num_threads"] == 2,
              f"{w}: threadpool_info() lists the one pool, the preloaded library, num_threads 2 ({rows})")
        check(rows and rows[0].get("version") == out["lib_version"] and out["lib_version"],
              f"{w}: with the library's version ({rows[0].get('version') if rows else None}, "
              f"poolshim.info(): {out['lib_version']})")
        check(out["inside"] == 1 and out["inside_row"] == [1], f"{w}: threadpool_limits(1) caps it to 1 "
              f"(budget {out['inside']}, row {out['inside_row']})")
        check(out["after"] == 2 and out["cap_after"] == 0,
              f"{w}: on exit the budget is 2 again and no cap is left ({out['after']}, cap {out['cap_after']})")
        check(out["dict_inside"] == 1, f"{w}: threadpool_limits({{'poolshim': 1}}) caps it too")


def cmd_controller(a):
    env = shim_env(a)
    probe = py_json(a, PROBE, env, "threadpoolctl probe")
    require(probe is not None, "the threadpoolctl probe ran")
    if not probe["installed"]:
        skip(f"{a.python} has no threadpoolctl (Debian: python3-threadpoolctl, scripts/deps.sh test)")
    if not (probe["register"] and probe["controller_class"]):
        skip(f"threadpoolctl {probe['version']} cannot take a custom controller (no register()/LibController; "
             "Debian 12 ships 3.1.0): poolshim.threadpool_limits serves instead (process.python.threadpool_limits), "
             "and the controller is exercised against threadpoolctl 3.6's interface by process.python.threadpoolctl_fake")
    check_controller(a, env, f"threadpoolctl {probe['version']}")


def cmd_controller_fake(a):
    env = shim_env(a, FAKE_DIR)
    probe = py_json(a, PROBE, env, "fake threadpoolctl probe")
    require(probe is not None and probe["installed"] and "poolshim-test-fake" in probe["version"]
            and probe["register"], f"the fake threadpoolctl is the one imported ({probe})")
    check_controller(a, env, "fake threadpoolctl 3.6 interface")


def cmd_limits(a):
    out = py_json(a, LIMITS, shim_env(a), "threadpool_limits")
    require(out is not None, "the threadpool_limits probe ran")
    if out["inside"] == 2:
        skip("this library's poolshim_set_budget() ignores the cap (the interim stub)")
    check(out["inside"] == 1 and out["original"] == {"poolshim": 2},
          f"inside threadpool_limits(1) the budget is 1, and the original num_threads 2 ({out['inside']}, {out['original']})")
    check(out["nested_limit"] == 2 and out["after_nested"] == 1, "a poolshim.limit(2) inside gives 2, then 1 again")
    check(out["after"] == 2 and out["cap_after"] == 0, f"on exit the budget is 2 and no cap is left (cap {out['cap_after']})")
    check(out["override"] == 2 and out["outer_back"] == 1,
          "threadpool_limits(2) inside limit(1) sets 2 (threadpoolctl sets, not mins), then the outer 1 is back")
    check(out["called"] == 1 and out["restored"] == 2,
          "the dict form applies when made; restore_original_limits() restores")
    check(out["after_exception"] == 2, "restored when the block raises")
    check(out["wrapped"] == 1 and out["after_wrapped"] == 2, "wrap(1) caps a decorated call only")
    check(out["none"] == 2, "limits=None does nothing")
    check(len(out["errors"]) == 4, f"ValueError for user_api='blas', 0, True and '2' ({out['errors']})")
    tpc = out["tpc"]
    if tpc is None:
        print("note: no threadpoolctl installed beside it")
    elif not tpc["registered"]:
        check("poolshim" not in tpc["rows"],
              f"threadpoolctl {tpc['version']} (no register()): register_threadpoolctl() is False and it lists no poolshim row")
    out = py_json(a, UNLOADED, clean_env(PYTHONPATH=a.pythonpath), "threadpool_limits without the shim")
    check(out is not None and not out["loaded"] and out["original"] == {"poolshim": None},
          "without the shim threadpool_limits(1) does nothing (as threadpoolctl for a library not loaded)")


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("--pythonpath", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--python", default=sys.executable)
    a = ap.parse_args()
    {"controller": cmd_controller, "controller-fake": cmd_controller_fake, "limits": cmd_limits}[a.check](a)


CHECKS = ("controller", "controller-fake", "limits")

if __name__ == "__main__":
    main("threadpoolctl " + next((x for x in sys.argv[1:] if x in CHECKS), "?"), body)
