"""The loop family of the native OpenMP runtime in a real process: tests/fixtures/openmp/
openmp_loops.c prints every chunk its loops were handed (long and unsigned long long, each
schedule, up and down, GOMP_loop_start's schedule numbers and mem block), doacross, scan and
lastprivate(conditional) results, and the old GOMP_parallel_loop_*_start's chunks: lines that
depend only on the team size. With the native runtime (the default) and forwarded to libgomp
(POOLSHIM_OPENMP=forward), each line must equal the run without the shim, at OMP_NUM_THREADS=1, 2, 3 and 4.
"""
import openmp_modes as om
import proc_util as pu


def differing_lines(want, got):
    w, g = want.splitlines(), got.splitlines()
    diff = [f"{x!r} vs {y!r}" for x, y in zip(w, g) if x != y][:2]
    return f"{len(g)} lines for {len(w)}; {diff}"


def body(a):
    m = om.modes(a.shim)
    for threads in ("1", "2", "3", "4"):
        outputs = [r.stdout for r in om.run_each(a.program, m, threads, a.timeout)]
        pu.check(f"threads={threads}\n" in outputs[0] and "mem=0" not in outputs[0],
                 f"OMP_NUM_THREADS={threads}: the program's own checks hold")
        om.check_alike(m, outputs, threads, differing_lines)
        print(f"OMP_NUM_THREADS={threads}: {len(outputs[0].splitlines())} lines alike")


if __name__ == "__main__":
    om.main("openmp.loops", body)
