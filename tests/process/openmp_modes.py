"""What the OpenMP process drivers share (openmp_driver.py, openmp_tasks_driver.py,
openmp_loops_driver.py, the __kmpc drivers): the modes a program runs in, one run of the program in
each mode at one OMP_NUM_THREADS, the check that every mode printed what the run without the shim
printed, and a run on LLVM's libomp that survives libomp's own crashes.
"""
import argparse

import proc_util as pu


def modes(shim, disable=False):
    """Without the shim, preloaded with POOLSHIM_OPENMP=forward, [POOLSHIM_DISABLE=openmp,] and
    preloaded (the native runtime, the default)."""
    m = [("without the shim", {}),
         ("preloaded, POOLSHIM_OPENMP=forward", {"LD_PRELOAD": shim, "POOLSHIM_OPENMP": "forward"})]
    if disable:
        m.append(("preloaded, POOLSHIM_DISABLE=openmp",
                  {"LD_PRELOAD": shim, "POOLSHIM_DISABLE": "openmp"}))
    m.append(("preloaded (native, the default)", {"LD_PRELOAD": shim}))
    return m


def run_on_libomp(cmd, env, what, timeout, log=None, tries=3):
    """Runs a clang-built program whose OpenMP calls end in LLVM's libomp (without the shim, or
    passed on to it). Debian's libomp 14 crashes by itself now and then with more threads than
    CPUs (a SIGSEGV inside libomp.so.5: 1 run in 200 of kmpc_native_program.c at 3 threads on 2
    CPUs, no shim loaded; CI's sanitizer step met it), so such a crash is said and the run made
    again, up to `tries` runs; any other result is returned at once."""
    for attempt in range(tries):
        r = pu.run(cmd, env, what=what, log=log, timeout=timeout)
        crashed = r.returncode < 0 or (r.returncode == 86 and "libomp.so" in r.stderr)
        if not crashed or attempt + 1 == tries:
            return r
        print(f"note {what}: libomp crashed (rc={r.returncode}), as it does without the shim; "
              f"run again")
    return r


def native(env):
    """Whether a mode's environment runs the native runtime (the preload's default)."""
    return ("LD_PRELOAD" in env and env.get("POOLSHIM_OPENMP", "shim") == "shim"
            and "POOLSHIM_DISABLE" not in env)


def run_each(program, mode_list, threads, timeout, log=None):
    """Runs program once per mode (OMP_NUM_THREADS=threads unless None); checks exit 0 and, with
    a log, that the native mode says so. Returns the results, in mode order."""
    extra = {"OMP_NUM_THREADS": threads} if threads else {}
    results = []
    for name, env in mode_list:
        r = pu.run([program], pu.clean_env(**env, **extra), what=program, log=log, timeout=timeout)
        pu.check(r.returncode == 0, f"OMP_NUM_THREADS={threads}, {name}: exit 0 "
                 f"(rc={r.returncode}, stderr={r.stderr[-300:]!r})")
        if log and native(env):
            pu.check("regions run on the shim's workers" in r.log,
                     f"OMP_NUM_THREADS={threads}, {name}: the log says native ({r.log!r})")
        results.append(r)
    return results


def check_alike(mode_list, outputs, threads, detail=None):
    """Every mode's output equals the first's (without the shim). detail(want, got): the text
    shown on a difference (default: both outputs)."""
    for (name, _), out in zip(mode_list[1:], outputs[1:]):
        shown = detail(outputs[0], out) if detail else f"{out!r} vs {outputs[0]!r}"
        pu.check(out == outputs[0], f"OMP_NUM_THREADS={threads}, {name}: output as without "
                 f"the shim ({shown})")


def main(name, body, arguments=None):
    """A driver's entry point: --shim, --program and --timeout (and what arguments(parser)
    adds), then body(args) under proc_util."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    if arguments:
        arguments(ap)
    a = ap.parse_args()
    pu.main(name, lambda: body(a))
