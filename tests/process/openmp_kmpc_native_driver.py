"""The native __kmpc runtime (POOLSHIM_KMPC=shim, issue 35) in real processes, built at test time
with clang-14 -fopenmp from tests/fixtures/openmp/:

  kmpc_native_program.c  only entry points the runtime has (loops of every schedule and type,
                         ordered loops, reductions, single, master, critical, if(0) and nested
                         regions): its
                         results are the same as without the shim at OMP_NUM_THREADS unset, 1, 2
                         and 3, a dynamic loop's lastprivate is its last iteration (libomp 14
                         misses it in some runs with more threads than CPUs, so that line is
                         checked on its own), and the log says the __kmpc calls ran natively (the load-time
                         line on libomp.so.5 says they may, not that it keeps its own pool);
  kmpc_program.c         tasks with dependences, taskgroup, taskloop, copyprivate, locks: natively
                         too, with libomp's output at 1, 2 and 3 threads;
  openmp_program.c       GCC's constructs as clang builds them (an ordered loop, sections,
                         locks, nested regions): natively, libomp's output;
  kmpc_task_reduction.c  task reductions (a taskgroup's task_reduction, tasks in_reduction, a
                         section copied lazily, a user-defined reduction, nested taskgroups, a
                         taskloop's reduction, the task modifier on a region and on a loop):
                         natively at 1-3 threads, libomp's output;
  kmpc_teams.c           host teams (__kmpc_fork_teams, push_num_teams): distribute loops and
                         dist_schedule chunks run each iteration once, a parallel region in
                         each team, the combined construct: natively at 1-3 threads, libomp's
                         output;
  kmpc_detach.c          detached tasks (__kmpc_task_allow_completion_event): a chain fulfilled
                         by later tasks, a dependence and a taskgroup on one, if(0) and final
                         ones, every member's: natively at 1-3 threads, libomp's output at 2
                         (libomp 14 aborts on it at 1);
  kmpc_cancel.c          cancel and cancellation points of a static and a dynamic loop, a
                         region, sections and a taskgroup, natively at 1-3 threads with
                         OMP_CANCELLATION true and false: every property line holds (Debian's
                         libomp 14 hangs on it at 2 threads, so libomp's run is not the oracle);
  kmpc_task_copies.cpp   tasks with firstprivate C++ objects in a taskgroup that one of them
                         cancels, at 1-3 threads with OMP_CANCELLATION true and false: every
                         copy is destroyed, a discarded task's too (libomp's rule), natively;
  kmpc_masks.c           a team of 2 natively under OMP_PROC_BIND=false and OMP_PLACES=threads,
                         where libomp's initialization pins the initial thread to place 0: the
                         member that is a shim thread may run on every CPU of the process;
  kmpc_doacross.c        doacross loops (__kmpc_doacross_*: one loop, a nest counting down, a
                         static schedule, a collapsed nest): natively at 1-3 threads, libomp's
                         output, and no iteration found what it waited for missing;
  kmpc_proc_bind.c       a proc_bind clause (__kmpc_push_proc_bind): outside the native set, so
                         the whole process stays on libomp (all or nothing), with the same output
                         and a log line that names the call that decided it;
  kmpc_mixed.c           OpenMP regions and pthreadpool calls (Debian's libpthreadpool): with a
                         budget of 2, the process has at most 2 threads under the shim, where
                         without it libomp's team and pthreadpool's workers make 3.
Skipped without clang-14 or libomp-14-dev; the mixed program without pthreadpool's header.
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile

import openmp_modes as om
import proc_util as pu


def build(a, tmp, src, libs=()):
    exe = os.path.join(tmp, os.path.splitext(src)[0])
    r = subprocess.run([a.clang, "-fopenmp", "-O1", os.path.join(a.fixtures, src), "-o", exe,
                        *libs], capture_output=True, text=True)
    pu.require(r.returncode == 0, f"clang-14 builds {src} ({r.stderr[-400:]!r})")
    return exe


def run(a, exe, what, libomp=False, **env):
    """One run; libomp: its OpenMP runs on libomp (its own crashes are retried, openmp_modes)."""
    if libomp:
        r = om.run_on_libomp([exe], pu.clean_env(**env), what, a.timeout, log="info")
    else:
        r = pu.run([exe], pu.clean_env(**env), what=what, log="info", timeout=a.timeout)
    pu.check(r.returncode == 0, f"{what}: exit 0 (rc={r.returncode}, stderr={r.stderr[-300:]!r})")
    return r


def native(a, **env):
    return dict(env, LD_PRELOAD=a.shim, POOLSHIM_KMPC="shim")


def body(a):
    if not a.clang or not shutil.which(a.clang):
        pu.skip("no clang-14 (scripts/deps.sh openmp installs it)")
    with tempfile.TemporaryDirectory(prefix="poolshim_kmpc_native_") as tmp:
        exe = build(a, tmp, "kmpc_native_program.c")
        for threads in (None, "1", "2", "3"):
            extra = {"OMP_NUM_THREADS": threads} if threads else {}
            want = run(a, exe, f"OMP_NUM_THREADS={threads}, without the shim", True, **extra)
            got = run(a, exe, f"OMP_NUM_THREADS={threads}, POOLSHIM_KMPC=shim", **native(a, **extra))
            first = lambda r: r.stdout.split("\n")[0]  # noqa: E731
            pu.check(first(got) == first(want), f"OMP_NUM_THREADS={threads}: the same results "
                     f"natively ({first(got)!r} vs {first(want)!r})")
            # libomp 14 itself gets this one wrong now and then (kmpc_native_program.c): the
            # native runtime must give the loop's last iteration, 102, every time.
            pu.check("lastprivate_dynamic=102" in got.stdout, f"OMP_NUM_THREADS={threads}: "
                     f"lastprivate of a dynamic loop natively ({got.stdout!r}; libomp: "
                     f"{want.stdout.split(chr(10))[1]!r})")
            pu.check("__kmpc calls run natively" in got.log,
                     f"OMP_NUM_THREADS={threads}: the log says native ({got.log!r})")
            # The load-time line on libomp.so.5 says where its clients' calls may go, not that
            # it keeps its own pool (the gate's line then says where they went).
            pu.check("OpenMP (LLVM libomp): its clients' __kmpc calls run on the shared pool if"
                     in got.log and "keeps its own thread pool" not in got.log,
                     f"OMP_NUM_THREADS={threads}: the load-time line on libomp.so.5 under "
                     f"POOLSHIM_KMPC=shim ({got.log!r})")
        print(want.stdout.strip())

        for src, libs in (("kmpc_program.c", []), ("openmp_program.c", ["-ldl"]),
                          ("kmpc_task_reduction.c", []), ("kmpc_teams.c", [])):
            exe = build(a, tmp, src, libs)
            name = src[:-2]
            for threads in ("1", "2", "3"):
                want = run(a, exe, f"{name}, {threads} threads, without the shim", True,
                           OMP_NUM_THREADS=threads)
                got = run(a, exe, f"{name}, {threads} threads, POOLSHIM_KMPC=shim",
                          **native(a, OMP_NUM_THREADS=threads))
                pu.check(got.stdout == want.stdout and "__kmpc calls run natively" in got.log,
                         f"{name}, {threads} threads: natively, the same output "
                         f"({got.stdout!r}; {got.log!r})")

        # Its output does not depend on the team's size; libomp 14 aborts on it in a team of
        # one (an assertion on its task team at the first region's end), so its run at 2
        # threads is the oracle for all three.
        exe = build(a, tmp, "kmpc_detach.c")
        want = run(a, exe, "kmpc_detach, 2 threads, without the shim", True, OMP_NUM_THREADS="2")
        for threads in ("1", "2", "3"):
            got = run(a, exe, f"kmpc_detach, {threads} threads, POOLSHIM_KMPC=shim",
                      **native(a, OMP_NUM_THREADS=threads))
            pu.check(got.stdout == want.stdout and "successor_after_fulfil=1\n" in got.stdout and
                     "__kmpc calls run natively" in got.log,
                     f"kmpc_detach, {threads} threads: natively, libomp's output ({got.stdout!r}; "
                     f"{want.stdout!r}; {got.log!r})")

        exe = build(a, tmp, "kmpc_cancel.c")
        for threads in ("1", "2", "3"):
            for on in ("true", "false"):
                what = f"kmpc_cancel, {threads} threads, OMP_CANCELLATION={on}"
                got = run(a, exe, what, **native(a, OMP_NUM_THREADS=threads, OMP_CANCELLATION=on))
                lines = dict(line.split("=") for line in got.stdout.split())
                pu.check(lines.get("cancellation") == ("1" if on == "true" else "0") and
                         len(lines) == 7 and all(v == "1" for k, v in lines.items()
                                                 if k != "cancellation") and
                         "__kmpc calls run natively" in got.log,
                         f"{what}: natively, every property holds ({got.stdout!r}; {got.log!r})")

        exe = build(a, tmp, "kmpc_task_copies.cpp", ["-lstdc++"])
        for threads in ("1", "2", "3"):
            for on in ("true", "false"):
                what = f"kmpc_task_copies, {threads} threads, OMP_CANCELLATION={on}"
                got = run(a, exe, what, **native(a, OMP_NUM_THREADS=threads, OMP_CANCELLATION=on))
                pu.check(got.stdout == "alive=0\nstopped=1\n" and
                         "__kmpc calls run natively" in got.log,
                         f"{what}: natively, no copy left alive ({got.stdout!r}; {got.log!r})")

        cpus = len(os.sched_getaffinity(0))
        if cpus > 1:
            exe = build(a, tmp, "kmpc_masks.c")
            # This order of the two (the environment's) is the one that makes libomp 14 pin.
            got = run(a, exe, "kmpc_masks", **native(a, OMP_PROC_BIND="false",
                                                     OMP_PLACES="threads"))
            pu.check(f"member1 cpus={cpus}\n" in got.stdout and
                     "__kmpc calls run natively" in got.log,
                     f"kmpc_masks: natively, member 1 may run on the process's {cpus} CPUs, not "
                     f"on the pinned initial thread's place ({got.stdout!r}; {got.log!r})")

        exe = build(a, tmp, "kmpc_doacross.c")
        for threads in ("1", "2", "3"):
            want = run(a, exe, f"kmpc_doacross, {threads} threads, without the shim", True,
                       OMP_NUM_THREADS=threads)
            got = run(a, exe, f"kmpc_doacross, {threads} threads, POOLSHIM_KMPC=shim",
                      **native(a, OMP_NUM_THREADS=threads))
            pu.check(got.stdout == want.stdout and got.stdout.count(" bad=0\n") == 4 and
                     "__kmpc calls run natively" in got.log,
                     f"kmpc_doacross, {threads} threads: natively, libomp's output, every wait "
                     f"waited ({got.stdout!r}; {want.stdout!r}; {got.log!r})")

        exe = build(a, tmp, "kmpc_proc_bind.c")
        want = run(a, exe, "kmpc_proc_bind, without the shim", True, OMP_NUM_THREADS="2")
        got = run(a, exe, "kmpc_proc_bind, POOLSHIM_KMPC=shim", True,  # on libomp: all or nothing
                  **native(a, OMP_NUM_THREADS="2"))
        pu.check(got.stdout == want.stdout, f"kmpc_proc_bind: the same output ({got.stdout!r})")
        pu.check(re.search(r"__kmpc calls go to libomp: .* calls __kmpc_push_proc_bind, which "
                           r"does not run natively", got.log) is not None,
                 f"kmpc_proc_bind: all or nothing, the log names the call ({got.log!r})")

        if not os.path.exists("/usr/include/pthreadpool.h"):
            print("kmpc_mixed: skipped (no pthreadpool.h: scripts/deps.sh test installs it)")
            return
        exe = build(a, tmp, "kmpc_mixed.c", ["-lpthreadpool"])
        budget = {"POOLSHIM_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"}
        want = run(a, exe, "kmpc_mixed, without the shim", True, OMP_NUM_THREADS="2")
        got = run(a, exe, "kmpc_mixed, POOLSHIM_KMPC=shim", **native(a, **budget))
        pu.check(got.stdout == want.stdout, f"kmpc_mixed: the same output ({got.stdout!r})")
        count = lambda r: int(re.search(r"threads=(\d+)", r.stderr).group(1))  # noqa: E731
        pu.check(count(got) <= 2, f"kmpc_mixed: at most the budget's 2 threads under the shim "
                 f"({count(got)}; {count(want)} without it)")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--clang", default="", help="clang-14; empty: skipped")
    ap.add_argument("--fixtures", required=True, help="tests/fixtures/openmp")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    pu.main("openmp.kmpc_native", lambda: body(args))
