"""The OpenMP surface in a real process: tests/fixtures/openmp/openmp_program.c (built with
-fopenmp against GCC's libgomp) prints lines that depend only on its team sizes. Under the
preload, with the surface as it is by default (every GOMP_*/omp_* call forwarded to libgomp),
with POOLSHIM_DISABLE=openmp, and with the native runtime (POOLSHIM_OPENMP=shim: regions on the
shim's workers), each line must equal the run without the shim, at
OMP_NUM_THREADS=1, 2 and 3 and with it unset. The shim's log must say where the calls went, and
threadpoolctl's move (omp_set_num_threads by a dlopen() handle on libgomp) must take effect.
"""
import argparse

import proc_util as pu


def body(a):
    modes = [("without the shim", {}),
             ("preloaded", {"LD_PRELOAD": a.shim}),
             ("preloaded, POOLSHIM_DISABLE=openmp", {"LD_PRELOAD": a.shim,
                                                     "POOLSHIM_DISABLE": "openmp"}),
             ("preloaded, POOLSHIM_OPENMP=shim", {"LD_PRELOAD": a.shim,
                                                  "POOLSHIM_OPENMP": "shim"})]
    for threads in (None, "1", "2", "3"):
        extra = {"OMP_NUM_THREADS": threads} if threads else {}
        outputs = []
        for name, env in modes:
            r = pu.run([a.program], pu.clean_env(**env, **extra), what=a.program, log="info",
                       timeout=a.timeout)
            pu.check(r.returncode == 0, f"OMP_NUM_THREADS={threads}, {name}: exit 0 "
                     f"(rc={r.returncode}, stderr={r.stderr[-300:]!r})")
            outputs.append(r.stdout)
            if env.get("POOLSHIM_OPENMP") == "shim":
                pu.check("regions run on the shim's workers" in r.log,
                         f"OMP_NUM_THREADS={threads}, {name}: the log says native ({r.log!r})")
            elif env:
                pu.check("OpenMP calls go to" in r.log and "libgomp.so.1" in r.log,
                         f"OMP_NUM_THREADS={threads}, {name}: the log names libgomp ({r.log!r})")
        print(outputs[0].strip())
        for (name, _), out in zip(modes[1:], outputs[1:]):
            pu.check(out == outputs[0], f"OMP_NUM_THREADS={threads}, {name}: output as without "
                     f"the shim ({out!r} vs {outputs[0]!r})")
        pu.check("by_handle=1 team_after=1 max_after=1" in outputs[0],
                 f"OMP_NUM_THREADS={threads}: omp_set_num_threads by handle took effect")
        pu.check(" ordered=1 " in outputs[0] and "constructs=-1" not in outputs[0],
                 f"OMP_NUM_THREADS={threads}: the program's own checks hold")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    pu.main("openmp.forward", lambda: body(a))


if __name__ == "__main__":
    main()
