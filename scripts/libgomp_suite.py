#!/usr/bin/env python3
"""GCC's own libgomp testsuite as an outside oracle for poolshim's OpenMP surface.

Extracts the host C and C++ tests (libgomp.c, libgomp.c++, libgomp.c-c++-common) from the GCC
tarball Debian's gcc-12-source ships, at run time, into a work folder (no GCC source is
committed). It also extracts the few headers those tests include (libgomp/*.h, include/*.h of
the tarball: libgomp_g.h, gomp-constants.h). Each test is compiled the way the testsuite's .exp
files do it (gcc -fopenmp -O2, or g++ for .C files and for the c-c++-common files in their C++
pass), honouring the dg- directives that matter for a run: dg-options, dg-additional-options,
dg-additional-sources, dg-set-target-env-var, dg-shouldfail, dg-output, dg-xfail-run-if,
target selectors. Then every test runs in each mode (without the shim, with the preload, and
optionally with the preload and the native surface) under a timeout, and a table is written.

With --clang, a third compiler column (issue 35): each test is also compiled with clang-14
-fopenmp (Debian's clang-14 and libomp-14-dev: the program links LLVM's libomp.so.5 and calls
its __kmpc_* ABI) and run on libomp without the shim and with the preload (the default mode:
the __kmpc calls forward to libomp), and with --native also with POOLSHIM_KMPC=shim (the native
__kmpc runtime, where the program's calls are all native). A test that passes on libomp and not
under the preload is a regression like the GCC column's.

Excluded, with the reason in the table: tests that only compile or link (dg-do compile/link),
and tests whose run needs an offload device (their selectors name offload_device or an offload
target; with no device libgomp's own test harness does not run them either).
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

TARBALL_GLOB = "/usr/src/gcc-12/gcc-*.tar.xz"
# Results that differ from the baseline for a reason the docs give (docs/openmp.md, "The clang
# column"): shown in the table and listed after it, not counted as regressions. (test, column).
KNOWN_DIFFERENCES = {
    ("c:libgomp.c/teams-5.c", "clang-native"):
        "libomp 14 answers omp_get_num_teams() 1 in a parallel region nested in a teams region, "
        "which the test's target region (inline: clang-14 without offload) relies on; natively "
        "the teams region's count, as the specification and libgomp",
}
SUITES = ("libgomp.c", "libgomp.c++", "libgomp.c-c++-common")


def find_tarball():
    import glob
    hits = sorted(p for p in glob.glob(TARBALL_GLOB) if "/gcc-12." in p)
    if not hits:
        sys.exit("libgomp_suite: no GCC tarball under /usr/src/gcc-12 (scripts/deps.sh openmp)")
    return hits[0]


def extract(tarball, dest):
    """The testsuite folders and the headers the tests include; once per work folder."""
    stamp = os.path.join(dest, ".extracted")
    if os.path.exists(stamp):
        return
    os.makedirs(dest, exist_ok=True)
    want = re.compile(r"^gcc-[^/]+/(libgomp/testsuite/(%s)/.*|libgomp/[^/]+\.h|include/[^/]+\.h)$"
                      % "|".join(re.escape(s) for s in SUITES))
    with tarfile.open(tarball) as tf:
        members = [m for m in tf if want.match(m.name) and (m.isfile() or m.isdir())]
        tf.extractall(dest, members=members)
    open(stamp, "w").close()


def source_root(dest):
    for name in os.listdir(dest):
        if name.startswith("gcc-"):
            return os.path.join(dest, name)
    sys.exit("libgomp_suite: extraction left no gcc-* folder in " + dest)


# --- dg directives ---------------------------------------------------------------------------

DIRECTIVE = re.compile(r"\{\s*(dg-[a-z-]+)\s*(.*?)\}\s*(?:\*/|$)", re.M)
# Effective targets that are false here: no offload device, no nvptx/gcn offload compiler.
FALSE_TARGETS = re.compile(r"offload_device|offload_target|openacc_|hsa_offloading")


def selector_true(sel):
    """A dg target selector, enough for these tests: a word or a glob (true unless it names
    offloading or another architecture), with !, && and || and braces."""
    tokens = re.findall(r"\{|\}|!|&&|\|\||[^\s{}!&|]+", sel)
    pos = 0

    def atom():
        nonlocal pos
        t = tokens[pos]
        pos += 1
        if t == "!":
            return not atom()
        if t == "{":
            v = expr()
            pos += 1  # }
            return v
        if t in ("target", "xfail"):
            return atom() if pos < len(tokens) and tokens[pos] != "}" else True
        if FALSE_TARGETS.search(t):
            return False
        if "-" in t and "*" in t:  # a triplet glob
            return re.match(t.replace("?", ".").replace("*", ".*"), "x86_64-pc-linux-gnu") is not None
        return t not in ("ilp32", "ia32", "powerpc*-*-*", "arm*-*-*", "nvptx*-*-*")

    def expr():
        nonlocal pos
        v = atom()
        while pos < len(tokens) and tokens[pos] != "}":
            op = tokens[pos]
            if op in ("&&", "||"):
                pos += 1
            else:
                op = "||"  # a list of words: any of them
            r = atom()
            v = (v and r) if op == "&&" else (v or r)
        return v

    if not tokens:
        return True
    try:
        return expr()
    except IndexError:
        return True


def split_args(text):
    """The directive's arguments: a "quoted string" or a {braced list} or a word, in order."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j = text.index('"', i + 1) if '"' in text[i + 1:] else len(text)
            out.append(text[i + 1:j]); i = j + 1
        elif c == "{":
            depth, j = 0, i
            while j < len(text):
                depth += text[j] == "{"
                depth -= text[j] == "}"
                j += 1
                if depth == 0:
                    break
            out.append(text[i:j]); i = j
        else:
            j = i
            while j < len(text) and not text[j].isspace():
                j += 1
            out.append(text[i:j]); i = j
    return out


class Test:
    def __init__(self, path, lang, suite, rel):
        self.path, self.lang, self.suite, self.rel = path, lang, suite, rel
        self.options = ["-O2"]
        self.extra = []
        self.sources = []
        self.env = {}
        self.do = "run"
        self.excluded = None
        self.shouldfail = False
        self.xfail = False
        self.outputs = []

    @property
    def name(self):
        return "%s:%s" % (self.lang, self.rel)


def parse(test):
    text = open(test.path, errors="replace").read()
    for m in DIRECTIVE.finditer(text):
        kind, args = m.group(1), split_args(m.group(2))
        sel = args[1] if len(args) > 1 and args[1].startswith("{") else ""
        if kind == "dg-do":
            what = args[0] if args else "run"
            if not selector_true(" ".join(args[1:])):
                test.excluded = "offloading only (dg-do %s %s)" % (what, " ".join(args[1:]))
            test.do = what
        elif kind in ("dg-options", "dg-additional-options") and args:
            if sel and not selector_true(sel):
                continue
            flags = args[0].split()
            if kind == "dg-options":
                test.options = flags
            else:
                test.extra += flags
        elif kind == "dg-additional-sources" and args:
            test.sources += args[0].split()
        elif kind == "dg-set-target-env-var" and len(args) >= 2:
            test.env[args[0]] = args[1]
        elif kind == "dg-require-effective-target" and args:
            if not selector_true(args[0]):
                test.excluded = "offloading only (dg-require-effective-target %s)" % args[0]
        elif kind == "dg-shouldfail":
            if not sel or selector_true(sel):
                test.shouldfail = True
        elif kind == "dg-xfail-run-if":
            if len(args) < 2 or selector_true(args[1]):
                test.xfail = True
        elif kind == "dg-skip-if":
            if len(args) >= 2 and selector_true(args[1]) and "offload" in m.group(2):
                test.excluded = "offloading only (dg-skip-if)"
        elif kind == "dg-output" and args:
            if not sel or selector_true(sel):
                test.outputs.append(args[0])
    if test.excluded is None and test.do in ("compile", "link", "assemble", "preprocess"):
        test.excluded = "compile-time test (dg-do %s): nothing runs" % test.do
    if test.excluded is None and re.search(r"-foffload=(?!disable)", " ".join(test.options + test.extra)):
        test.excluded = "offloading only (-foffload)"


def collect(root):
    ts = os.path.join(root, "libgomp", "testsuite")
    tests = []
    for suite, exts, lang in (("libgomp.c", (".c",), "c"), ("libgomp.c-c++-common", (".c",), "c"),
                              ("libgomp.c++", (".C",), "c++"),
                              ("libgomp.c-c++-common", (".c",), "c++")):
        base = os.path.join(ts, suite)
        for dirpath, _, files in os.walk(base):
            for f in sorted(files):
                if f.endswith(exts):
                    p = os.path.join(dirpath, f)
                    tests.append(Test(p, lang, suite, os.path.relpath(p, ts)))
    tests.sort(key=lambda t: t.name)
    return tests


# --- build and run ---------------------------------------------------------------------------

def compile_test(test, root, work, cc="gcc"):
    """cc: "gcc" (gcc/g++, libgomp) or "clang" (clang-14/clang++-14, libomp)."""
    if cc == "clang":
        compiler = ["clang-14"] if test.lang == "c" else ["clang++-14", "-x", "c++"]
        # GCC-only options of the tests are warned about, not errors; -w silences the rest.
        dialect = ["-Qunused-arguments", "-Wno-unknown-warning-option", "-Wno-error"]
    else:
        compiler = ["gcc"] if test.lang == "c" else ["g++", "-x", "c++"]
        dialect = []
    srcdir = os.path.dirname(test.path)
    extra_src = [os.path.join(srcdir, s) for s in test.sources]
    flags = (["-fopenmp"] + test.options + test.extra + dialect +
             ["-fmessage-length=0", "-fdiagnostics-color=never", "-w",
              "-I" + os.path.join(root, "libgomp"), "-I" + os.path.join(root, "include")])
    key = hashlib.sha1(("%s|%s|%s|%s" % (test.name, cc, flags, extra_src)).encode()).hexdigest()[:16]
    exe = os.path.join(work, "bin", key)
    if os.path.exists(exe):
        return exe, None
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cmd = compiler + flags + [test.path] + extra_src
    cmd += ["-o", exe + ".tmp", "-lm"] + (["-lstdc++"] if test.lang == "c++" else [])
    r = subprocess.run(cmd, cwd=srcdir, capture_output=True, text=True, errors="replace")
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["?"])[-1][:160]
    os.rename(exe + ".tmp", exe)
    return exe, None


# What every run of every column gets before the test's own variables (--threads, --env).
BASE_ENV = {}


def run_test(test, exe, mode_env, timeout):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMP_", "GOMP_", "POOLSHIM_")) and k != "LD_PRELOAD"}
    env.update(BASE_ENV)
    env.update(test.env)
    env.update(mode_env)
    start = time.monotonic()
    try:
        r = subprocess.run([exe], env=env, capture_output=True, timeout=timeout,
                           cwd=os.path.dirname(exe))
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start
    secs = time.monotonic() - start
    ok = (r.returncode != 0) if test.shouldfail else (r.returncode == 0)
    if ok and test.outputs:
        out = (r.stdout + r.stderr).decode(errors="replace")
        for pat in test.outputs:
            try:
                if not re.search(pat.replace("\\n", "\n"), out, re.S):
                    ok = False
            except re.error:
                pass
    if test.xfail:
        return ("xfail" if not ok else "xpass"), secs
    return ("pass" if ok else "fail(rc=%d)" % r.returncode), secs


def run_kmpc_native(test, exe, mode_env, timeout):
    """run_test under POOLSHIM_KMPC=shim, and whether the shim's log says the __kmpc calls ran
    natively (the gate admitted the program) rather than on libomp."""
    fd, log = tempfile.mkstemp(prefix="libgomp_suite_", suffix=".log")
    os.close(fd)
    try:
        env = dict(mode_env, POOLSHIM_LOG="info", POOLSHIM_LOG_FILE=log)
        result = run_test(test, exe, env, timeout)[0]
        with open(log, errors="replace") as f:
            return result, "__kmpc calls run natively" in f.read()
    finally:
        os.unlink(log)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(here)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shim", default=os.path.join(repo, "build", "lib", "libpoolshim.so"))
    ap.add_argument("--work", default=os.path.join(repo, "build", "libgomp-suite"))
    ap.add_argument("--out", default=None, help="the table (default WORK/table.md)")
    ap.add_argument("--subset", type=int, default=0,
                    help="run only N tests, spread evenly over the list (CI's fast subset)")
    ap.add_argument("--match", default=None, help="only tests whose name matches this regex")
    ap.add_argument("--native", action="store_true",
                    help="add a third mode: the preload running the native runtime (the default; "
                         "POOLSHIM_OPENMP=shim)")
    ap.add_argument("--native-only", action="store_true",
                    help="with --native: leave the forwarding column out (libgomp and native only)")
    ap.add_argument("--clang", action="store_true",
                    help="add the clang-14 column: built with clang-14 -fopenmp, run on libomp "
                         "without and with the preload (with --native: and POOLSHIM_KMPC=shim)")
    ap.add_argument("--threads", type=int, default=0,
                    help="run every column with OMP_NUM_THREADS=N unless the test sets it (teams "
                         "of one, or more members than CPUs); default: unset")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="set NAME=VALUE in every column unless the test sets it (repeatable; "
                         "e.g. OMP_WAIT_POLICY=passive)")
    ap.add_argument("--shim-env", action="append", default=[], metavar="NAME=VALUE",
                    help="set NAME=VALUE in every column that preloads the shim (repeatable; e.g. "
                         "POOLSHIM_NUM_THREADS=1: a budget of one thread)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0)
    a = ap.parse_args()
    for option, values in (("--env", a.env), ("--shim-env", a.shim_env)):
        for kv in values:
            if "=" not in kv or kv.startswith("="):
                ap.error("%s wants NAME=VALUE, not %r" % (option, kv))
    BASE_ENV.update(kv.split("=", 1) for kv in a.env)
    if a.threads > 0:
        BASE_ENV["OMP_NUM_THREADS"] = str(a.threads)

    if not os.path.exists(a.shim):
        sys.exit("libgomp_suite: no shim at %s (build first, or --shim)" % a.shim)
    extract(find_tarball(), os.path.join(a.work, "src"))
    root = source_root(os.path.join(a.work, "src"))
    tests = collect(root)
    for t in tests:
        parse(t)
    if a.match:
        tests = [t for t in tests if re.search(a.match, t.name)]
    if a.subset and a.subset < len(tests):
        step = len(tests) / a.subset
        tests = [tests[int(i * step)] for i in range(a.subset)]

    # "shim": the preload forwarding to libgomp; "shim-native": the native runtime (the default).
    modes = [("libgomp", {}), ("shim", {"LD_PRELOAD": os.path.abspath(a.shim),
                                        "POOLSHIM_OPENMP": "forward"})]
    if a.native:
        modes.append(("shim-native", {"LD_PRELOAD": os.path.abspath(a.shim),
                                      "POOLSHIM_OPENMP": "shim"}))
        if a.native_only:
            del modes[1]

    # The clang column: the same test built by clang-14 against libomp, without the shim and
    # with the preload (its default mode). Compared with each other, not with the GCC column.
    clang_modes = [("clang-libomp", {}), ("clang-shim", {"LD_PRELOAD": os.path.abspath(a.shim)})]
    if a.native:  # and the native __kmpc runtime (POOLSHIM_KMPC=shim, experimental)
        clang_modes.append(("clang-native", {"LD_PRELOAD": os.path.abspath(a.shim),
                                             "POOLSHIM_KMPC": "shim"}))
    if not a.clang:
        clang_modes = []
    elif not shutil.which("clang-14"):
        sys.exit("libgomp_suite: --clang needs clang-14 and libomp-14-dev (scripts/deps.sh openmp)")
    for name, value in (kv.split("=", 1) for kv in a.shim_env):
        for _, env in modes + clang_modes:
            if "LD_PRELOAD" in env:
                env[name] = value
    columns = modes + clang_modes

    def one(t):
        if t.excluded:
            return t, ["excluded"] * len(columns), t.excluded
        res, notes = [], []
        exe, err = compile_test(t, root, a.work)
        if exe is None:
            res += ["build-error"] * len(modes)
            notes.append("does not compile here: " + err)
        else:
            res += [run_test(t, exe, env, a.timeout)[0] for _, env in modes]
        if clang_modes:
            exe, err = compile_test(t, root, a.work, "clang")
            if exe is None:
                res += ["build-error"] * len(clang_modes)
                notes.append("clang-14: " + err)
            else:
                for name, env in clang_modes:
                    if name != "clang-native":
                        res.append(run_test(t, exe, env, a.timeout)[0])
                        continue
                    r, native = run_kmpc_native(t, exe, env, a.timeout)
                    res.append(r)
                    if native:
                        notes.append("clang-native: natively")
        return t, res, "; ".join(notes)

    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for t, res, note in ex.map(one, tests):
            results.append((t, res, note))

    out = a.out or os.path.join(a.work, "table.md")
    counts = {}
    regressions = []
    differences = []
    with open(out, "w") as f:
        f.write("| test | %s | note |\n|---|%s---|\n" % (" | ".join(m for m, _ in columns),
                                                       "---|" * len(columns)))
        good = ("pass", "xfail")
        for t, res, note in results:
            f.write("| %s | %s | %s |\n" % (t.name, " | ".join(res), note))
            for (m, _), r in zip(columns, res):
                key = r if not r.startswith("fail") else "fail"
                counts.setdefault(m, {}).setdefault(key, 0)
                counts[m][key] += 1
            # Each compiler's first column is its baseline (libgomp, libomp).
            for group, base in ((modes, 0), (clang_modes, len(modes))):
                if group and res[base] in good:
                    for (m, _), r in zip(group[1:], res[base + 1:base + len(group)]):
                        if r in good:
                            continue
                        known = KNOWN_DIFFERENCES.get((t.name, m))
                        line = "%s (%s: %s)" % (t.name, m, r)
                        if known:
                            differences.append("%s: known difference: %s" % (line, known))
                        else:
                            regressions.append(line)
    summary = "; ".join("%s: %s" % (m, ", ".join("%d %s" % (n, k) for k, n in sorted(c.items())))
                        for m, c in counts.items())
    if any(m == "clang-native" for m, _ in clang_modes):
        at = [m for m, _ in columns].index("clang-native")
        ran = [res[at] for _, res, note in results if "clang-native: natively" in note]
        summary += ("; clang-native ran natively in %d tests (%d pass), on libomp in the rest"
                    % (len(ran), sum(r in ("pass", "xfail") for r in ran)))
    with open(out, "a") as f:
        f.write("\n%d tests. %s. Regressions (pass with libgomp, or libomp, not under the "
                "shim): %d\n"
                % (len(results), summary, len(regressions)))
        for r in regressions:
            f.write("- %s\n" % r)
        for d in differences:
            f.write("- %s\n" % d)
    print("libgomp_suite: %d tests; %s" % (len(results), summary))
    print("libgomp_suite: %d regressions%s" % (len(regressions),
          (": " + ", ".join(regressions[:20])) if regressions else ""))
    for d in differences:
        print("libgomp_suite: " + d)
    print("libgomp_suite: table in " + out)
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
