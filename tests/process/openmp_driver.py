"""The OpenMP surface in a real process: tests/fixtures/openmp/openmp_program.c (built with
-fopenmp against GCC's libgomp) prints lines that depend only on its team sizes. Under the
preload with POOLSHIM_OPENMP=forward (every GOMP_*/omp_* call forwarded to libgomp), with
POOLSHIM_DISABLE=openmp, and as it is by default (the native runtime: regions on the shim's
workers), each line must equal the run without the shim, at
OMP_NUM_THREADS=1, 2 and 3 and with it unset. The shim's log must say where the calls went, and
threadpoolctl's move (omp_set_num_threads by a dlopen() handle on libgomp) must take effect.
"""
import openmp_modes as om
import proc_util as pu


def body(a):
    m = om.modes(a.shim, disable=True)
    for threads in (None, "1", "2", "3"):
        results = om.run_each(a.program, m, threads, a.timeout, log="info")
        for (name, env), r in zip(m[1:], results[1:]):
            if not om.native(env):
                pu.check("OpenMP calls go to" in r.log and "libgomp.so.1" in r.log,
                         f"OMP_NUM_THREADS={threads}, {name}: the log names libgomp ({r.log!r})")
        outputs = [r.stdout for r in results]
        print(outputs[0].strip())
        om.check_alike(m, outputs, threads)
        pu.check("by_handle=1 team_after=1 max_after=1" in outputs[0],
                 f"OMP_NUM_THREADS={threads}: omp_set_num_threads by handle took effect")
        pu.check(" ordered=1 " in outputs[0] and "constructs=-1" not in outputs[0],
                 f"OMP_NUM_THREADS={threads}: the program's own checks hold")


if __name__ == "__main__":
    om.main("openmp.forward", body)
