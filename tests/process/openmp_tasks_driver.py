"""Tasks in a real process: tests/fixtures/openmp/openmp_tasks.c (task reductions, taskloop's
split of the iterations into tasks, taskloop reductions, omp_in_final; built with -fopenmp
against GCC's libgomp) prints lines that depend only on its team sizes. Preloaded with
POOLSHIM_OPENMP=forward (forwarding to libgomp) and as by default (the native runtime), each line must equal the run
without the shim, at OMP_NUM_THREADS=1, 2 and 3 and with it unset. Natively, its "flood" run
(a member flooding its queue with tiny tasks) must leave a waiter free to run another's long ones.
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
    # A barrier's waiter that leaves one member's queue of tiny tasks still takes another's long
    # ones (task_wait.h's back-off avoids that queue only).
    for name, env in m:
        if om.native(env):
            r = pu.run([a.program, "flood"], pu.clean_env(**env), what=a.program,
                       timeout=a.timeout)
            pu.check(r.returncode == 0 and "flood=1" in r.stdout, f"{name}: while one member "
                     f"floods its queue with tiny tasks, a waiter runs another's long ones "
                     f"({r.stdout.strip()!r}, rc={r.returncode})")


if __name__ == "__main__":
    om.main("openmp.tasks", body)
