#!/usr/bin/env python3
"""Process tests of POOLSHIM_GROUP (a budget shared by processes; docs/budget.md).

usage: group_driver.py --bin DIR SCENARIO
  bound    4 group_host processes at once, each with a budget of 4, in one group: every item of
           every call ran once, each member reports the group, nothing on stderr, and once they
           have exited the group's ledger (`poolshim info`) has no live member. The bound itself
           is only sampled (bound-sampled).
  bound-sampled  the same 4, and the pool threads in state R across them (sampled from
           /proc/PID/task/*/stat) stay within the budget plus a hand-off; the same 4 without the
           group are sampled first as a control (the sampler must see the oversubscription
           there). Shares of samples on a machine that may be busy: its test has the label
           timing (tests/test_rules.cmake).
  kill     a member holding busy counts is killed with SIGKILL: `poolshim info` shows its counts
           left in the ledger, then a new member still gets workers (the dead share is taken back)
           and the group's busy count drops back to 0.
  foreign  other users: a ledger in our path owned by another user, or ours left world-writable,
           is refused with one warning and the process runs on its own budget; `nobody` can
           neither open root's ledger nor squat on a name so that root's process uses it
           (nobody's group_host runs from copies: proc_util.AsUser).
  garbage  a ledger file with garbage content: one warning, own budget, correct results.
Exit 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE).
"""
import argparse
import glob
import os
import re
import signal
import statistics
import sys
import time

from proc_util import AsUser, abort, check, clean_env, finish, main, run, skip, spawn

TIMEOUT = 60


def env_for(group, threads):
    env = clean_env(POOLSHIM_NUM_THREADS=str(threads))
    if group:
        env["POOLSHIM_GROUP"] = group
    return env


def parse(out):
    kv = {}
    for line in out.splitlines():
        k, sep, v = line.partition("=")
        if not sep:
            abort("stdout line is not key=value: %r" % line)
        kv[k] = v
    return kv


def ledger(group, uid=None):
    return "/dev/shm/poolshim-%d-%s" % (os.geteuid() if uid is None else uid, group)


def unique(name):
    return "t%d-%s" % (os.getpid(), name)


def threads_in_r(pids):
    """How many threads of these processes are runnable (state R) right now."""
    n = 0
    for pid in pids:
        for stat in glob.glob("/proc/%d/task/*/stat" % pid):
            try:
                with open(stat) as f:
                    text = f.read()
            except OSError:
                continue
            if text[text.rfind(")") + 2:].startswith("R"):
                n += 1
    return n


def run_four(bin_dir, group, threads, calls, items, spin):
    cmd = [os.path.join(bin_dir, "group_host"), "loop", str(calls), str(items), str(spin)]
    procs = [spawn(cmd, env_for(group, threads), what="group_host loop (one of 4)", timeout=TIMEOUT,
                   text=True) for _ in range(4)]
    # Sample pool work, not pool start-up: the engine creates its workers on the first call (new
    # threads are runnable for a moment), so sampling starts once every process has made one.
    # (A hang is ended by each process's watchdog: readline sees EOF, finish() reports it.)
    for p in procs:
        if p.stdout.readline().strip() != "started=1":
            finish(p)
            abort("group_host started (printed started=1): %s" % p.stderr.read())
    samples = []
    while any(p.poll() is None for p in procs):
        samples.append(threads_in_r([p.pid for p in procs if p.poll() is None]))
        time.sleep(0.002)
    results = []
    for p in procs:
        out, err = finish(p)
        if p.returncode != 0:
            abort("group_host exited %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, out, err))
        kv = parse(out)
        check(kv.get("ok") == "1" and kv.get("bad_items") == "0", "right results: %s" % kv)
        check(not err.strip(), "nothing on stderr: %r" % err)
        results.append(kv)
    return samples, results


def distribution(samples):
    return " ".join("%d:%d" % (v, samples.count(v)) for v in sorted(set(samples)))


def scenario_bound(bin_dir):
    budget, calls, items, spin = 4, 120, 16, 400
    group = unique("bound")
    try:
        grouped, results = run_four(bin_dir, group, budget, calls, items, spin)
        for kv in results:
            print("member: group=%s members=%s calls_with_workers=%s" %
                  (kv["group"], kv["group_members"], kv["calls_with_workers"]))
            check(kv["group"] == group and int(kv["group_members"]) >= 1,
                  "the member reports the group, itself a member: %s" % kv)
        members, busy = poolshim_info(bin_dir, group)
        # (busy may still hold the share of a member whose worker was leaving a call at its exit:
        # the next member to look takes a dead member's share back, group.kill checks that.)
        print("after the 4 exited: %d live members, %d busy" % (members, busy))
        check(members == 0, "the group's ledger has no live member after the 4 exited")
    finally:
        if os.path.exists(ledger(group)):
            os.unlink(ledger(group))


def scenario_bound_sampled(bin_dir):
    # Enough calls that the sampler (one sample every 2-3 ms) gets well over the 20 samples it
    # needs on a quiet machine too: 30 calls ran out after 15 samples at load 1.
    budget, calls, items, spin = 4, 120, 16, 400
    group = unique("bound")
    try:
        control, _ = run_four(bin_dir, None, budget, calls // 2, items, spin)
        grouped, results = run_four(bin_dir, group, budget, calls, items, spin)
    finally:
        if os.path.exists(ledger(group)):
            os.unlink(ledger(group))
    # A hand-off: a thread that has just given its count back (or a caller between two calls)
    # is still runnable for a moment; allow budget + 2 in the sampled tail.
    limit = budget + 2
    print("samples without group (%d): %s" % (len(control), distribution(control)))
    print("samples with group    (%d): %s" % (len(grouped), distribution(grouped)))
    for kv in results:
        print("member: group=%s members=%s calls_with_workers=%s" %
              (kv["group"], kv["group_members"], kv["calls_with_workers"]))
        check(kv["group"] == group, "the member reports the group: %s" % kv)
    if len(control) < 20 or len(grouped) < 20:
        abort("enough samples to judge (%d, %d; 20 needed)" % (len(control), len(grouped)))
    over_control = sum(s > limit for s in control) / len(control)
    over_grouped = sum(s > limit for s in grouped) / len(grouped)
    print("share of samples above %d: without group %.2f, with group %.2f" %
          (limit, over_control, over_grouped))
    # The control proves the sampler can see oversubscription. Without a group each process runs
    # 1 caller + 3 workers; the scheduler's idle workers sleep within 50 us, so how often the
    # control is caught above the limit depends on the machine's other load (0.13 to 0.9 seen):
    # a quarter of the samples is enough to tell.
    check(over_control >= 0.25, "the control oversubscribed in at least 25%% of samples (%.2f): the "
          "sampler can tell" % over_control)
    check(statistics.median(grouped) <= budget and over_grouped <= 0.10,
          "the group stays within its budget of %d busy threads" % budget)


def poolshim_info(bin_dir, group):
    out = run([os.path.join(bin_dir, "poolshim"), "info"], env_for(group, 2), timeout=TIMEOUT).stdout
    m = re.search(r"^group: .*?(\d+) live members?, (-?\d+) threads? busy", out, re.M)
    if not m:
        abort("poolshim info reports the ledger:\n" + out)
    poolshim_info.text = out
    return int(m.group(1)), int(m.group(2))


def scenario_kill(bin_dir):
    group = unique("kill")
    host = os.path.join(bin_dir, "group_host")
    try:
        holder = spawn([host, "hold"], env_for(group, 2), what="group_host hold", timeout=TIMEOUT,
                       text=True)
        line = holder.stdout.readline()  # blocks until a worker of the holder runs an item
        if line.strip() != "holding=1":
            finish(holder)
            abort("the holder started: %r %s" % (line, holder.stderr.read()))
        members, busy = poolshim_info(bin_dir, group)
        print("holder running: %d member, %d busy" % (members, busy))
        check(members == 1 and busy == 2, "the holder is 1 member with 2 busy threads")
        check(re.search(r"^  member pid %d: 2 busy$" % holder.pid, poolshim_info.text, re.M),
              "poolshim info shows the holder's share:\n" + poolshim_info.text)
        holder.send_signal(signal.SIGKILL)
        finish(holder)
        members, busy = poolshim_info(bin_dir, group)
        print("holder killed: %d members, %d busy (its share is still in the ledger)" % (members, busy))
        check(members == 0 and busy == 2, "the dead holder's 2 counts are in the ledger, and no member")
        out = run([host, "recover", "200"], env_for(group, 2), timeout=TIMEOUT)
        kv = parse(out.stdout)
        print("new member: %s" % kv)
        check(out.returncode == 0 and kv.get("worker_joined") == "1",
              "a new member gets a worker after the kill: %s %s" % (kv, out.stderr))
        check(kv.get("group") == group and kv.get("group_busy") == "0" and kv.get("group_members") == "1",
              "the group recovers: %s" % kv)
        check(not out.stderr.strip(), "nothing on stderr: %r" % out.stderr)
    finally:
        if os.path.exists(ledger(group)):
            os.unlink(ledger(group))


def run_loop(host, group, user=None, threads=2):
    """group_host (the path host) runs a loop in group; as user (a proc_util.AsUser) if given."""
    cmd = [host, "loop", "40", "16", "20"]
    out = run(user.command(cmd) if user else cmd, env_for(group, threads), timeout=TIMEOUT)
    kv = parse(out.stdout)
    if out.returncode != 0 or kv.get("ok") != "1":
        abort("group_host runs a loop right (%d): %s %s" % (out.returncode, kv, out.stderr))
    return kv, out.stderr


def expect_fallback(host, group, why_re, user=None):
    kv, err = run_loop(host, group, user)
    warnings = [l for l in err.splitlines() if l.startswith("poolshim: warning")]
    print("fallback (%s): %s" % (group, warnings))
    check(len(warnings) == 1 and re.search(why_re, warnings[0]) and "own budget" in warnings[0],
          "exactly one warning matching %r, got:\n%s" % (why_re, err))
    check(len(err.splitlines()) == 1, "nothing else on stderr:\n" + err)
    check(kv["group"] == "" and kv["group_members"] == "0" and kv["budget"] == "2",
          "a refused ledger leaves the process on its own budget: %s" % kv)


def scenario_foreign(bin_dir):
    if os.geteuid() != 0:
        skip("needs root to create files as another user")
    with AsUser() as nobody:
        foreign(os.path.join(bin_dir, "group_host"), nobody)


def foreign(host, nobody):
    """The foreign scenario: this process is root, nobody a proc_util.AsUser."""
    # group_host is linked against libpoolshim.so: the copy comes with a copy of the library.
    nobody_host = nobody.stage(host)
    created = []
    try:
        # 1. root's ledger, in use: nobody can neither open it nor replace it.
        group = unique("root")
        kv, err = run_loop(host, group)
        created.append(ledger(group))
        check(kv["group"] == group and not err, "root uses its own group: %s %s" % (kv, err))
        def touch_root_ledger():
            for flags in (os.O_RDWR, os.O_RDONLY):
                try:
                    os.open(ledger(group, 0), flags)
                    return 1
                except PermissionError:
                    pass
            try:
                os.unlink(ledger(group, 0))
                return 1
            except PermissionError:
                return 0
        check(nobody.call(touch_root_ledger) == 0, "nobody can neither open nor remove root's ledger")

        # 2. nobody runs the same group: its ledger path is its own (per uid), so no effect on root's;
        # but a file squatted there by root (0600) cannot be joined: one warning, own budget.
        squat = ledger(group, nobody.uid)
        with open(squat, "wb") as f:
            f.write(b"\0" * 64)
        os.chmod(squat, 0o600)
        created.append(squat)
        expect_fallback(nobody_host, group, r"cannot open the group ledger .*Permission denied", nobody)
        # ... and one it may open (0666) is still refused: not its own.
        os.chmod(squat, 0o666)
        expect_fallback(nobody_host, group, r"belongs to another user|Permission denied", nobody)

        # 3. nobody plants a file at root's path for a group root has not started yet.
        group2 = unique("planted")
        planted = ledger(group2)
        def plant():
            fd = os.open(planted, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
            os.write(fd, b"\0" * 8192)
            return 0
        if nobody.call(plant) != 0:
            abort("a file planted as nobody")
        created.append(planted)
        check(os.stat(planted).st_uid == nobody.uid, "the planted file is nobody's")
        expect_fallback(host, group2, r"belongs to another user|Permission denied")

        # 4. root's own ledger left group/world-accessible: refused.
        os.chmod(ledger(group), 0o644)
        expect_fallback(host, group, r"not owner-only")
    finally:
        for p in created:
            if os.path.exists(p):
                os.unlink(p)


def scenario_garbage(bin_dir):
    host = os.path.join(bin_dir, "group_host")
    group = unique("garbage")
    path = ledger(group)
    try:
        # A real ledger first, to learn its size; then the same size of garbage.
        run_loop(host, group)
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            f.write(os.urandom(size))
        expect_fallback(host, group, r"not usable \(bad magic\)")
        with open(path, "r+b") as f:
            f.truncate(size // 2)
        expect_fallback(host, group, r"wrong size")
    finally:
        if os.path.exists(path):
            os.unlink(path)


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("scenario", choices=["bound", "bound-sampled", "kill", "foreign", "garbage"])
    a = ap.parse_args()
    globals()["scenario_" + a.scenario.replace("-", "_")](a.bin)


if __name__ == "__main__":
    main("group_driver " + sys.argv[-1], body)
