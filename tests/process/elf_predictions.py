"""Holds `poolshim audit` against what really happens under LD_PRELOAD of the shim.

usage: elf_predictions.py CHECK --poolshim BIN --shim LIB --probe PROBE [--exe EXE] [--wheel WHL]
                          [--expect FILE=ET,PTP[,REASON]]... MODULE...

CHECK is one of:
  audit        audit --json on the module files: every verdict as --expect says, exit status 1
  wheel        the same on the zip wheel (members named WHEEL!poolshim_variants/FILE)
  predictions  under LD_PRELOAD=LIB the probe loads every module: a module audit calls
               `redirected` really uses the shim's pool (executorch) / the shim's pthreadpool,
               one called `unreachable` or `absent` really keeps its own (absent: a copy audit
               cannot see, like a stripped module's hidden one) or has none; every module given
               is reported; poolshim_get_modules() agrees
  exe          EXE (defines the pool itself): audit says unreachable (main executable), and under
               LD_PRELOAD its own code still uses its own pool, not the shim's
  exe-exported EXE (same, linked -rdynamic) loads MODULE under LD_PRELOAD: its exported copy comes
               first, so the module uses the executable's pool; `audit --pid` and the in-process
               API both say so (unreachable: the main executable's exported copy comes first)
  deepbind     under LD_PRELOAD the probe loads MODULE normally and the --deepbind MODULE with
               RTLD_DEEPBIND: audit (ELF data only) calls both redirected, but the deep-bound one
               keeps its own pool, and the in-process API sees it from its GOT (resolved to self)
Every process runs with its own environment; exit 0 when all checks pass, 1 otherwise.
"""
import argparse
import json
import os
import subprocess
import sys

from proc_util import check, clean_env, finish, main, run, spawn


def audit_json(args, targets):
    p = run([args.poolshim, "audit", "--json", "--all"] + targets, what="poolshim audit")
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        print(p.stdout, p.stderr, sep="\n")
        raise
    return p.returncode, doc


def by_file(doc):
    return {os.path.basename(m["path"].split("!")[-1]): m for m in doc["modules"]}


def parse_expect(items):
    out = {}
    for item in items:
        name, _, rest = item.partition("=")
        parts = rest.split(",", 2)
        out[name] = (parts[0], parts[1], parts[2] if len(parts) > 2 else "")
    return out


def check_expected(mods, expect, label):
    for name, (et, ptp, reason) in sorted(expect.items()):
        m = mods.get(name)
        check(m is not None, f"{label}: audit lists {name}")
        if m is None:
            continue
        got = (m["executorch"]["verdict"], m["pthreadpool"]["verdict"])
        check(got == (et, ptp), f"{label}: {name} is executorch {et}, pthreadpool {ptp} (got {got[0]}, {got[1]})")
        if reason:
            reasons = m["executorch"]["reason"] + " | " + m["pthreadpool"]["reason"]
            check(reason in reasons, f"{label}: {name} reason mentions '{reason}' (got '{reasons}')")


def run_probe(args, argv, preload=True):
    env = clean_env(LD_PRELOAD=args.shim) if preload else clean_env()
    p = run(argv, env, what=os.path.basename(argv[0]))
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    if p.returncode != 0:
        print(p.stderr)
    return p.returncode, lines


def cmd_audit(args):
    status, doc = audit_json(args, args.modules)
    check(status == 1, f"audit exit status is 1 when a copy is unreachable (got {status})")
    check(doc["exit_status"] == status, "the JSON document carries the exit status")
    check_expected(by_file(doc), parse_expect(args.expect), "files")


def cmd_wheel(args):
    status, doc = audit_json(args, [args.wheel])
    check(status == 1, f"audit of the wheel exits 1 (got {status})")
    check(doc["archives"] == 1, "the wheel was read as an archive")
    mods = by_file(doc)
    check(all("!" in m["path"] for m in doc["modules"]), "members are named WHEEL!MEMBER")
    check_expected(mods, parse_expect(args.expect), "wheel")
    if args.exe:
        exe = mods.get(os.path.basename(args.exe))
        check(exe is not None and exe["executorch"]["verdict"] == "unreachable"
              and exe["main_executable"], "wheel: the executable member is unreachable (main executable)")


def cmd_predictions(args):
    _, doc = audit_json(args, args.modules)
    verdicts = by_file(doc)
    status, lines = run_probe(args, [args.probe] + args.modules)
    check(status == 0, "the probe loaded every module under LD_PRELOAD")
    shim_pool = next((l["shim_pool"] for l in lines if "shim_pool" in l), None)
    check(shim_pool is not None, "the shim's get_threadpool() is reachable in the probe")
    api = {os.path.basename(l["api"]): l for l in lines if "api" in l}
    names = {0: "absent", 1: "redirected", 2: "unreachable"}
    loaded = {os.path.basename(l["module"]): l for l in lines if "module" in l}
    check(sorted(loaded) == sorted(os.path.basename(m) for m in args.modules),
          f"the probe reports every module it was given ({len(loaded)} of {len(args.modules)})")
    for name, l in sorted(loaded.items()):
        v = verdicts.get(name)
        if v is None:
            check(False, f"audit judged {name}")
            continue
        et, ptp = v["executorch"]["verdict"], v["pthreadpool"]["verdict"]
        # Every verdict, "absent" too, against what the module's code really does: redirected
        # means the shim's pool; unreachable and absent mean its own pool (absent: audit sees no
        # copy, e.g. a stripped module's hidden one, which then keeps its own pool) or no copy.
        if "executorch_pool" in l:
            shares = l["executorch_pool"] == shim_pool
            check(shares == (et == "redirected"),
                  f"{name}: audit says executorch {et}; its code {'uses' if shares else 'does not use'} the shim's pool")
        else:
            check(et == "absent", f"{name}: no ExecuTorch pool in the module; audit says executorch {et}")
        if "pthreadpool_private" in l:
            private = l["pthreadpool_private"] == 1
            check(l["pthreadpool_private"] in (0, 1), f"{name}: its pthreadpool loop ran every item")
            check(private == (ptp != "redirected"),
                  f"{name}: audit says pthreadpool {ptp}; pthreadpool_create reached {'its own copy' if private else 'the shim'}")
        else:
            check(ptp == "absent", f"{name}: no pthreadpool copy in the module; audit says pthreadpool {ptp}")
        # The in-process verdicts (read from memory, .symtab from the file) match the file's.
        a = api.get(name)
        got = (names[a["executorch"]], names[a["pthreadpool"]]) if a else ("absent", "absent")
        check(got == (et, ptp), f"{name}: poolshim_get_modules() says {got[0]}, {got[1]} like audit")


def cmd_exe(args):
    _, doc = audit_json(args, [args.exe])
    m = doc["modules"][0] if doc["modules"] else None
    check(m is not None and m["main_executable"] and m["executorch"]["verdict"] == "unreachable"
          and "main executable" in m["executorch"]["reason"], "audit: the executable's copy is unreachable")
    status, lines = run_probe(args, [args.exe])
    shim = next((l["shim_pool"] for l in lines if "shim_pool" in l), None)
    own = next((l["self_pool"] for l in lines if "self_pool" in l), None)
    check(status == 0 and shim is not None and own is not None, "the executable ran under LD_PRELOAD")
    check(own != shim, "under LD_PRELOAD the executable's code still uses its own pool")
    api = [l for l in lines if "api" in l and l["api"] == ""]
    check(len(api) == 1 and api[0]["executorch"] == 2, "poolshim_get_modules() lists the executable as unreachable")


def cmd_exe_exported(args):
    env = clean_env(LD_PRELOAD=args.shim)
    p = spawn([args.exe, "--wait"] + args.modules, env, stdin=subprocess.PIPE, stderr=None, text=True)
    lines = []
    try:
        for raw in p.stdout:
            l = json.loads(raw)
            lines.append(l)
            if l.get("ready"):
                break
        status, doc = audit_json(args, ["--pid", str(p.pid)])
    finally:
        finish(p, "")
    check(p.returncode == 0, "the executable ran under LD_PRELOAD")
    own = next((l["self_pool"] for l in lines if "self_pool" in l), None)
    shim = next((l["shim_pool"] for l in lines if "shim_pool" in l), None)
    check(own is not None and shim is not None and own != shim, "the executable uses its own pool")
    mods = by_file(doc)
    check(status == 1, f"audit --pid exits 1 (got {status})")
    check(any(m["provider"] for m in doc["modules"]), "audit --pid sees the preloaded shim as the provider")
    for path in args.modules:
        name = os.path.basename(path)
        used = next((l.get("executorch_pool") for l in lines if l.get("module") == path), None)
        check(used == own, f"{name}: its calls bind to the executable's exported copy")
        m = mods.get(name)
        check(m is not None and m["executorch"]["verdict"] == "unreachable"
              and "main executable" in m["executorch"]["reason"], f"audit --pid: {name} unreachable (executable first)")
        a = next((l for l in lines if "api" in l and os.path.basename(l["api"]) == name), None)
        check(a is not None and a["executorch"] == 2 and "main executable" in a["reason"],
              f"poolshim_get_modules(): {name} unreachable (executable first)")


def cmd_deepbind(args):
    plain, deep = args.modules[0], args.deepbind
    _, doc = audit_json(args, [plain, deep])
    mods = by_file(doc)
    check(all(m["executorch"]["verdict"] == "redirected" for m in mods.values()),
          "audit (ELF data alone) predicts both redirected")
    status, lines = run_probe(args, [args.probe, plain, "--deepbind", deep])
    check(status == 0, "the probe loaded both modules under LD_PRELOAD")
    shim = next((l["shim_pool"] for l in lines if "shim_pool" in l), None)
    pools = {l["module"]: l.get("executorch_pool") for l in lines if "module" in l}
    check(pools.get(plain) == shim, "the normally loaded module shares the shim's pool")
    check(pools.get(deep) not in (None, shim), "the RTLD_DEEPBIND module keeps its own pool")
    api = {l["api"]: l for l in lines if "api" in l}
    check(api.get(plain, {}).get("executorch") == 1, "poolshim_get_modules(): the plain module redirected")
    a = api.get(deep, {})
    check(a.get("executorch") == 2 and "RTLD_DEEPBIND" in a.get("reason", ""),
          f"poolshim_get_modules(): the deep-bound module unreachable, from its GOT ({a.get('reason')})")


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("check")
    ap.add_argument("--poolshim", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--probe")
    ap.add_argument("--exe")
    ap.add_argument("--wheel")
    ap.add_argument("--deepbind")
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("modules", nargs="*")
    args = ap.parse_intermixed_args()
    {"audit": cmd_audit, "wheel": cmd_wheel, "predictions": cmd_predictions, "exe": cmd_exe,
     "exe-exported": cmd_exe_exported, "deepbind": cmd_deepbind}[args.check](args)


if __name__ == "__main__":
    main("elf_predictions " + " ".join(sys.argv[1:2]), body)
