"""Tasks in a real process: tests/fixtures/openmp/openmp_tasks.c (task reductions, taskloop's
split of the iterations into tasks, taskloop reductions, omp_in_final; built with -fopenmp
against GCC's libgomp) prints lines that depend only on its team sizes. Preloaded with
POOLSHIM_OPENMP=forward (forwarding to libgomp) and as by default (the native runtime), each line must equal the run
without the shim, at OMP_NUM_THREADS=1, 2 and 3 and with it unset.
"""
import openmp_modes as om
import proc_util as pu


def body(a):
    m = om.modes(a.shim)
    for threads in (None, "1", "2", "3"):
        outputs = [r.stdout for r in om.run_each(a.program, m, threads, a.timeout, log="info")]
        print(outputs[0].strip())
        om.check_alike(m, outputs, threads)
        pu.check("final_bad=0" in outputs[0], f"OMP_NUM_THREADS={threads}: omp_in_final's checks")
        pu.check("spread=0" not in outputs[0], f"OMP_NUM_THREADS={threads}: two tasks at once")


if __name__ == "__main__":
    om.main("openmp.tasks", body)
