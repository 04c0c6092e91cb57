"""Where the native runtime once differed from libgomp: tests/fixtures/openmp/openmp_parity.c
(task dependences, taskwait depend, an undeferred task's depend clause, an if(0) task's taskwait, undeferred detached tasks, a team
member's signal mask, threadprivate data of two initial threads' regions at once) prints one line per scenario. Without the shim, preloaded with
POOLSHIM_OPENMP=forward and natively (the default), every line must be the same, and each must
read as libgomp decides it (a runtime that gets a scenario wrong prints "stuck", "serial",
"returned_early" or "pending" instead of hanging). Then, with OMP_STACKSIZE=64M, a member that
uses 32 MiB of its stack runs in every mode (pthread's default 8 MiB crashes it). And the
scenarios that hang on a runtime that gets them wrong, each in a process of its own under a
timeout: taskgroup_depend (the region's end is a barrier that runs tasks), detach_team1
(detached tasks in a team of one are deferred), detach_depend_team1 (so is a task that depends
on one), detach_taskgroup_team1 and detach_chain_team1 (a taskgroup's end and an if(0) task's
dependences run the sibling their tasks wait behind).
--part bind: under OMP_PROC_BIND/OMP_PLACES settings, a team's members are where libgomp puts them
(place, partition, CPU mask), natively as without the shim, and the native budget counts the
process's CPUs, not the one place libgomp's constructor pinned the initial thread to.
Then (same part) the affinity format: omp_capture_affinity and omp_display_affinity in team
members, with OMP_DISPLAY_AFFINITY=true, show what libgomp shows (lines sorted, process ids and
thread handles masked).
--part ordered_wait (label timing: a rate): a member waiting 300 ms for its ordered turn sleeps
natively, as on libgomp (its CPU time under a third of the wait).
"""
import os
import re

import openmp_modes as om
import proc_util as pu

EXPECTED = ["depend_unrelated=ok x=1", "depend_chains=concurrent x=1234 y=1234",
            "depend_order r1=1 r2=1 seen_reads=2 r3=2 b_after=2 d_after=7",
            "taskwait_depend=ok seen=5", "if0_depend=ok seen=3", "if0_taskwait=ok c=1", "detach_if0=waited",
            "detach_outside=waited", "signal_member=handled", "threadprivate_callers lost=0"]


def ordered_wait(a):
    for name, env in om.modes(a.shim):
        r = pu.run([a.program, "ordered_wait"], pu.clean_env(**env), what=a.program,
                   timeout=a.timeout)
        print(name, r.stdout.strip())
        pu.check(r.returncode == 0, f"{name}: exit 0 (rc={r.returncode})")
        pct = int(r.stdout.strip().split("=")[1])
        pu.check(pct < 33, f"{name}: the ordered wait sleeps (CPU {pct}% of the wait)")


# Settings whose placements libgomp and the native runtime must agree on. OMP_PROC_BIND=true
# is left out: libgomp then records a new place for a reused thread without moving it
# (docs/openmp.md, "Differences from libgomp that remain").
BIND_SETTINGS = [{"OMP_PROC_BIND": "close", "OMP_PLACES": "threads"},
                 {"OMP_PROC_BIND": "spread", "OMP_PLACES": "cores"},
                 {"OMP_PROC_BIND": "primary,close", "OMP_PLACES": "threads"},
                 {"OMP_PROC_BIND": "close", "OMP_PLACES": "{1},{0}"},
                 {"OMP_PROC_BIND": "false", "OMP_PLACES": "threads"}]


def bind(a):
    cpus = len(os.sched_getaffinity(0))
    for setting in BIND_SETTINGS:
        m = om.modes(a.shim)
        outs = []
        for name, env in m:
            r = pu.run([a.program, "bind"], pu.clean_env(**env, **setting), what=a.program,
                       timeout=a.timeout, log="info")
            pu.check(r.returncode == 0, f"{setting}, {name}: exit 0 (rc={r.returncode})")
            outs.append(r.stdout)
            # Abstract places (threads, cores) cover every CPU of the process; a place list
            # names its own.
            if (om.native(env) and setting["OMP_PROC_BIND"] != "false"
                    and not setting["OMP_PLACES"].startswith("{")):
                pu.check(f"budget: {cpus} thread" in r.log,
                         f"{setting}, {name}: the budget counts the process's {cpus} CPUs, not "
                         f"the pinned thread's ({r.log.strip()[-400:]!r})")
        print(setting, outs[0].strip().replace("\n", " | "))
        om.check_alike(m, outs, None, lambda want, got: f"{got!r} vs {want!r} ({setting})")


AFFINITY_SETTINGS = [{"OMP_DISPLAY_AFFINITY": "true"},
                     {"OMP_DISPLAY_AFFINITY": "true", "OMP_PROC_BIND": "spread", "OMP_PLACES": "cores",
                      "OMP_AFFINITY_FORMAT": "L%L n%n N%N A%A"}]


def affinity(a):
    for setting in AFFINITY_SETTINGS:
        m = om.modes(a.shim)
        outs = []
        for name, env in m:
            r = pu.run([a.program, "affinity"], pu.clean_env(**env, **setting), what=a.program,
                       timeout=a.timeout)
            pu.check(r.returncode == 0, f"{setting}, {name}: exit 0 (rc={r.returncode})")
            text = re.sub(r"0x[0-9a-f]+", "H", r.stdout + r.stderr)
            text = re.sub(r"P=[0-9]+", "P=pid", text)
            outs.append(sorted(text.splitlines()))
        print(setting, " | ".join(outs[0]))
        om.check_alike(m, outs, None, lambda want, got: f"{got!r} vs {want!r} ({setting})")


def body(a):
    if a.part == "ordered_wait":
        ordered_wait(a)
        return
    if a.part == "bind":
        bind(a)
        affinity(a)
        return
    m = om.modes(a.shim)
    outputs = [r.stdout for r in om.run_each(a.program, m, None, a.timeout, log="info")]
    print(outputs[0].strip())
    lines = outputs[0].splitlines()
    pu.check(lines == EXPECTED, f"without the shim, the lines as libgomp gives them ({lines!r})")
    om.check_alike(m, outputs, None)
    for part, want in (("taskgroup_depend", "taskgroup_depend=ok seen=1 x=2"),
                       ("detach_team1", "detach_team1=ok x=1 y=1 z=1"),
                       ("detach_depend_team1", "detach_depend_team1=ok a=1 b=2"),
                       ("detach_taskgroup_team1", "detach_taskgroup_team1=ok x=1 y=2 z=-1"),
                       ("detach_chain_team1", "detach_chain_team1=ok x=1 y=2 z=3 w=-1")):
        for name, env in m:
            r = pu.run([a.program, part], pu.clean_env(**env), what=a.program, timeout=30)
            pu.check(r.returncode == 0 and r.stdout.strip() == want,
                     f"{name}, {part}: {want} (rc={r.returncode}, stdout={r.stdout.strip()!r})")
    for name, env in m:
        r = pu.run([a.program, "stack"], pu.clean_env(**env, OMP_STACKSIZE="64M"), what=a.program,
                   timeout=a.timeout)
        pu.check(r.returncode == 0 and r.stdout.strip() == "stack_member=ok",
                 f"{name}, OMP_STACKSIZE=64M: member 1 has the stack (rc={r.returncode}, "
                 f"stdout={r.stdout.strip()!r})")


if __name__ == "__main__":
    om.main("openmp.parity", body,
            lambda ap: ap.add_argument("--part", choices=["scenarios", "ordered_wait", "bind"],
                                       default="scenarios"))
