"""The loop family of the native OpenMP runtime in a real process: tests/fixtures/openmp/
openmp_loops.c prints every chunk its loops were handed (long and unsigned long long, each
schedule, up and down, GOMP_loop_start's schedule numbers and mem block), doacross, scan and
lastprivate(conditional) results, and the old GOMP_parallel_loop_*_start's chunks: lines that
depend only on the team size. With the native runtime (POOLSHIM_OPENMP=shim) and forwarded to
libgomp, each line must equal the run without the shim, at OMP_NUM_THREADS=1, 2, 3 and 4.
"""
import argparse

import proc_util as pu


def body(a):
    modes = [("without the shim", {}),
             ("preloaded", {"LD_PRELOAD": a.shim}),
             ("preloaded, POOLSHIM_OPENMP=shim", {"LD_PRELOAD": a.shim, "POOLSHIM_OPENMP": "shim"})]
    for threads in ("1", "2", "3", "4"):
        outputs = []
        for name, env in modes:
            r = pu.run([a.program], pu.clean_env(**env, OMP_NUM_THREADS=threads), what=a.program,
                       timeout=a.timeout)
            pu.check(r.returncode == 0, f"OMP_NUM_THREADS={threads}, {name}: exit 0 "
                     f"(rc={r.returncode}, stderr={r.stderr[-300:]!r})")
            outputs.append(r.stdout)
        pu.check(f"threads={threads}\n" in outputs[0] and "mem=0" not in outputs[0],
                 f"OMP_NUM_THREADS={threads}: the program's own checks hold")
        for (name, _), out in zip(modes[1:], outputs[1:]):
            want, got = outputs[0].splitlines(), out.splitlines()
            diff = [f"{w!r} vs {g!r}" for w, g in zip(want, got) if w != g][:2]
            pu.check(out == outputs[0], f"OMP_NUM_THREADS={threads}, {name}: output as without "
                     f"the shim ({len(got)} lines for {len(want)}; {diff})")
        print(f"OMP_NUM_THREADS={threads}: {len(outputs[0].splitlines())} lines alike")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    pu.main("openmp.loops", lambda: body(a))


if __name__ == "__main__":
    main()
