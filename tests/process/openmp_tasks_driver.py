"""Tasks in a real process: tests/fixtures/openmp/openmp_tasks.c (task reductions, taskloop's
split of the iterations into tasks, taskloop reductions, omp_in_final; built with -fopenmp
against GCC's libgomp) prints lines that depend only on its team sizes. Preloaded (forwarding to
libgomp) and with the native runtime (POOLSHIM_OPENMP=shim), each line must equal the run
without the shim, at OMP_NUM_THREADS=1, 2 and 3 and with it unset.
"""
import argparse

import proc_util as pu


def body(a):
    modes = [("without the shim", {}),
             ("preloaded", {"LD_PRELOAD": a.shim}),
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
        print(outputs[0].strip())
        for (name, _), out in zip(modes[1:], outputs[1:]):
            pu.check(out == outputs[0], f"OMP_NUM_THREADS={threads}, {name}: output as without "
                     f"the shim ({out!r} vs {outputs[0]!r})")
        pu.check("final_bad=0" in outputs[0], f"OMP_NUM_THREADS={threads}: omp_in_final's checks")
        pu.check("spread=0" not in outputs[0], f"OMP_NUM_THREADS={threads}: two tasks at once")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    pu.main("openmp.tasks", lambda: body(a))


if __name__ == "__main__":
    main()
