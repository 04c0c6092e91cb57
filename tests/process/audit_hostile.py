"""Hostile input to `poolshim audit` (issue 9, item 9): no crash, no hang, bounded memory, and a
clear line plus exit status 2 (also in --json) wherever the scan is incomplete.

usage: audit_hostile.py --poolshim BIN --module SO [--python PY]
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

from proc_util import AsUser, Skipped, check, ended, finish, main, run, spawn

TIMEOUT = 60


def audit(a, args, cwd=None, user=None):
    """`poolshim audit ARGS`; as user (a proc_util.AsUser) from a copy of the command if given."""
    argv = [a.poolshim, "audit"] + args
    if user is not None:
        argv = user.command([user.stage(a.poolshim), "audit"] + args)
    r = run(argv, what=f"audit {' '.join(args)[:80]}", timeout=TIMEOUT, cwd=cwd)
    check(r.returncode >= 0, f"audit {' '.join(args)[:80]}: no crash (status {r.returncode})")
    return r


def audit_json(a, args, **kw):
    r = audit(a, ["--json"] + args, **kw)
    try:
        return json.loads(r.stdout), r
    except ValueError:
        check(False, f"audit --json {' '.join(args)[:80]}: valid JSON")
        return None, r


def incomplete(a, args, what, needle, **kw):
    """The scan of args is incomplete: exit 2, a line naming it on stderr, and in --json."""
    r = audit(a, args, **kw)
    check(r.returncode == 2 and needle in r.stderr, f"{what}: exit 2 and a line on stderr ({r.returncode}, {r.stderr.strip()[:160]!r})")
    check("INCOMPLETE" in r.stdout, f"{what}: the table says the scan is incomplete")
    j, _ = audit_json(a, args, **kw)
    if j is not None:
        check(j["exit_status"] == 2 and j["complete"] is False and any(needle in f["path"] or needle in f["reason"] for f in j["incomplete"]),
              f"{what}: --json says incomplete, with the path and reason")


def elf_header(data):
    return struct.unpack_from("<16sHHIQQQIHHHHHH", data, 0)


def with_phdr_change(data, ptype, field_offset, value):
    """Copy of an ELF64 image with one field of the first program header of type ptype changed."""
    out = bytearray(data)
    h = elf_header(data)
    phoff, phentsize, phnum = h[5], h[9], h[10]
    for i in range(phnum):
        at = phoff + i * phentsize
        if struct.unpack_from("<I", data, at)[0] == ptype:
            struct.pack_into("<Q", out, at + field_offset, value)
            return bytes(out)
    raise ValueError("no such program header")


def cmd_files(a, tmp):
    data = open(a.module, "rb").read()
    rnd = random.Random(9)
    files = {
        "truncated.so": data[: len(data) // 3],
        "cut_in_header.so": data[:40],
        "garbage_behind_magic.so": b"\x7fELF" + bytes(rnd.getrandbits(8) for _ in range(8192)),
        "dynamic_outside.so": with_phdr_change(data, 2, 8, 0x7FFF_FFFF_0000),  # PT_DYNAMIC p_offset
    }
    huge = bytearray(data)
    struct.pack_into("<HH", huge, 56, 0xFFFF, 64)   # e_phnum = 65535
    struct.pack_into("<HH", huge, 60, 0xFFFF, 0xFFFE)  # e_shnum = 65535, e_shstrndx
    files["huge_counts.so"] = bytes(huge)
    huge_sh = bytearray(data)
    struct.pack_into("<Q", huge_sh, 40, len(data) - 64)  # e_shoff near the end: the table runs off
    struct.pack_into("<H", huge_sh, 60, 0xFFFF)
    files["huge_section_table.so"] = bytes(huge_sh)
    for name, body in files.items():
        p = os.path.join(tmp, name)
        open(p, "wb").write(body)
        incomplete(a, [p], name, name)
    # Many hostile files in one folder: one run, every one named, bounded time.
    d = os.path.join(tmp, "all")
    os.mkdir(d)
    for i in range(60):
        body = bytearray(data)
        for _ in range(20):
            body[rnd.randrange(64, len(body))] = rnd.getrandbits(8)
        body[rnd.randrange(16, 64)] = rnd.getrandbits(8)
        open(os.path.join(d, f"fuzz{i}.so"), "wb").write(body)
    r = audit(a, ["--all", d])
    check(r.stdout.count("fuzz") >= 1, "60 corrupted copies in one folder: judged, no crash")

    empty = os.path.join(tmp, "empty.so")
    open(empty, "wb").close()
    r = audit(a, [empty])
    check(r.returncode == 0 and "empty file" in r.stderr, "an empty file: a note, nothing to judge, exit 0")


def cmd_special(a, tmp):
    fifo = os.path.join(tmp, "pipe.so")
    os.mkfifo(fifo)
    incomplete(a, [fifo], "a FIFO named on the command line (never opened, no hang)", "FIFO")
    d = os.path.join(tmp, "with_fifo")
    os.mkdir(d)
    os.mkfifo(os.path.join(d, "pipe.so"))
    shutil.copy(a.module, os.path.join(d, "ok.so"))
    r = audit(a, [d])
    check(r.returncode == 0, "a FIFO inside a folder is skipped without opening it (exit 0, no hang)")
    r = audit(a, ["/dev/null"])
    check(r.returncode == 2 and "character device" in r.stderr, "a device named on the command line: exit 2")

    loop = os.path.join(tmp, "loop.so")
    os.symlink(loop, loop)
    incomplete(a, [loop], "a symlink loop named on the command line", "loop")
    d = os.path.join(tmp, "loops")
    os.mkdir(d)
    os.symlink(os.path.join(d, "b.so"), os.path.join(d, "a.so"))
    os.symlink(os.path.join(d, "a.so"), os.path.join(d, "b.so"))
    incomplete(a, [d], "a symlink loop inside a folder", "loop")

    # Unreadable: as root everything is readable, so read it as nobody (a copy of the command,
    # the file in a folder nobody can traverse: proc_util.AsUser).
    if os.geteuid() != 0:
        unreadable(a, tmp, None)
        return
    try:
        with AsUser() as nobody:
            unreadable(a, nobody.dir, nobody)
    except Skipped as e:
        print(f"note: {e}: the unreadable-file check is not run")


def unreadable(a, parent, user):
    """A file of mode 0 in parent, named and inside a folder: incomplete (as user if given)."""
    secret_dir = os.path.join(parent, "unreadable")
    os.mkdir(secret_dir)
    os.chmod(secret_dir, 0o755)
    secret = os.path.join(secret_dir, "secret.so")
    shutil.copy(a.module, secret)
    os.chmod(secret, 0)
    how = " (read as nobody)" if user else ""
    incomplete(a, [secret], "an unreadable file" + how, "secret.so", user=user)
    incomplete(a, [secret_dir], "an unreadable file inside a folder" + how, "secret.so", user=user)


def cmd_archives(a, tmp):
    data = open(a.module, "rb").read()
    work = os.path.join(tmp, "cwd", "deeper")
    os.makedirs(work)
    wheel = os.path.join(tmp, "traversal.whl")
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("../../evil.so", data)
        z.writestr("/abs/evil2.so", data)
        z.writestr("pkg/ok.so", data)
    before = set(os.listdir(tmp)) | set(os.listdir(os.path.join(tmp, "cwd")))
    r = audit(a, [wheel], cwd=work)
    after = set(os.listdir(tmp)) | set(os.listdir(os.path.join(tmp, "cwd")))
    check(r.returncode == 0 and "traversal.whl!../../evil.so" in r.stdout and "!/abs/evil2.so" in r.stdout,
          "a wheel with traversal names: members judged under their names, exit 0")
    check(before == after and not os.path.exists("/abs/evil2.so"), "nothing is written outside (nothing is extracted)")

    good = os.path.join(tmp, "good.whl")
    with zipfile.ZipFile(good, "w") as z:
        for i in range(3):
            z.writestr(f"pkg/m{i}.so", data)
    raw = bytearray(open(good, "rb").read())
    cd = raw.rfind(b"PK\x01\x02")
    raw[cd:cd + 4] = b"XX\x01\x02"  # the last central directory entry is no longer one
    eocd = raw.rfind(b"PK\x05\x06")
    corrupt_cd = os.path.join(tmp, "corrupt_cd.whl")
    open(corrupt_cd, "wb").write(raw)
    incomplete(a, [corrupt_cd], "a wheel with a corrupt central directory", "corrupt_cd.whl")
    raw2 = bytearray(open(good, "rb").read())
    struct.pack_into("<I", raw2, eocd + 16, len(raw2) * 4)  # the directory's offset points past the end
    bad_eocd = os.path.join(tmp, "bad_eocd.whl")
    open(bad_eocd, "wb").write(raw2)
    r = audit(a, [bad_eocd])
    # libarchive may still find every member through the local headers; what must never happen
    # is a member silently lost with exit 0.
    check((r.returncode == 2 or all(f"pkg/m{i}.so" in r.stdout for i in range(3))),
          f"a wheel whose directory offset points outside the file: exit 2, or every member judged ({r and r.returncode})")
    trunc = os.path.join(tmp, "truncated.whl")
    open(trunc, "wb").write(open(good, "rb").read()[: len(raw) // 2])
    incomplete(a, [trunc], "a truncated wheel", "truncated.whl")


def minimal_elf_header():
    # ELF64, little-endian, x86_64 ET_DYN, no program or section headers.
    return struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, b"\0" * 7,
                       3, 62, 1, 0, 0, 0, 0, 64, 56, 0, 64, 0, 0)


def cmd_big_member(a, tmp):
    """A 2 GiB member that compresses to a few MiB: read as a stream, memory bounded."""
    wheel = os.path.join(tmp, "bomb.whl")
    size = 2 << 30
    zeros = bytes(1 << 20)
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        with z.open("pkg/_huge.so", "w", force_zip64=True) as f:
            f.write(minimal_elf_header())
            written = 64
            while written + len(zeros) <= size:
                f.write(zeros)
                written += len(zeros)
    print(f"note: bomb.whl is {os.path.getsize(wheel) >> 20} MiB for a {size >> 30} GiB member")
    out_path = os.path.join(tmp, "bomb.json")
    with open(out_path, "wb") as out_file:
        proc = spawn([a.poolshim, "audit", "--json", "--all", wheel], what="audit of the 2 GiB member",
                     timeout=240, stdout=out_file, stderr=subprocess.DEVNULL)
        # wait4 gives this child's own peak RSS (the watchdog only catches a hang).
        _, st, usage = os.wait4(proc.pid, 0)
        proc.returncode = status = os.waitstatus_to_exitcode(st)
        ended(proc)
    out = open(out_path, "rb").read()
    peak_kib = usage.ru_maxrss
    check(status >= 0, f"the 2 GiB member: the audit finished (status {status})")
    try:
        j = json.loads(out)
    except ValueError:
        j = None
    check(j is not None and any(m["path"].endswith("!pkg/_huge.so") for m in j["modules"]),
          "the 2 GiB member is read to its end and judged")
    check(0 < peak_kib < 64 * 1024, f"memory stays bounded: peak RSS {peak_kib} KiB for a 2 GiB member (limit 64 MiB)")


def zombie(a):
    p = spawn(["sh", "-c", "exit 0"], stdout=None, stderr=None)
    for _ in range(500):
        try:
            state = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            state = "?"
        if state == "Z":
            break
        time.sleep(0.01)
    incomplete(a, ["--pid", str(p.pid)], "--pid of a process that has exited (a zombie)", "exited")
    finish(p)


def exits_mid_scan(a):
    """Processes that exit at random moments while they are audited: never a partial list that
    passes for complete."""
    py = a.python
    partial = complete = 0
    rnd = random.Random(5)
    for i in range(8):
        # The target says when its modules are loaded, then exits after a random part of the
        # time a scan takes (about 0.1-0.3 s here), so many rounds end during the scan.
        delay = rnd.choice([0.0, 0.02, 0.05, 0.1, 0.2])
        p = spawn([py, "-c", f"import time, ssl, json, decimal; print('ready', flush=True); time.sleep({delay})"],
                  stderr=None)
        p.stdout.readline()
        r = audit(a, ["--all", "--pid", str(p.pid)])
        finish(p)
        if r.returncode == 2:
            partial += 1
            check("exited" in r.stderr or "no such process" in r.stderr,
                  f"round {i}: exit 2 says the process went away")
        else:
            complete += 1
            check("libc.so" in r.stdout and "python" in r.stdout, f"round {i}: exit {r.returncode} only with a complete list")
    print(f"note: {complete} complete and {partial} incomplete scans of exiting processes")


def cmd_process(a, tmp):
    zombie(a)
    exits_mid_scan(a)
    r = audit(a, ["--pid", "999999999"])
    check(r.returncode == 2, "--pid of a process id out of range: exit 2")


def cmd_non_utf8(a, tmp):
    d = os.path.join(tmp.encode(), b"names")
    os.mkdir(d)
    shutil.copy(a.module, os.path.join(d, b"bad\xff\xfe-name.so"))
    shutil.copy(a.module, os.path.join(d, b"new\nline.so"))
    j, r = audit_json(a, ["--all", os.fsdecode(d)])
    check(j is not None and len(j["modules"]) == 2, "paths that are not UTF-8 (and a newline) give valid JSON")
    r = audit(a, [os.fsdecode(d)])
    check("new?line.so" in r.stdout, "a newline in a name is shown as '?' in the table")


def body():
    ap = argparse.ArgumentParser()
    ap.add_argument("--poolshim", required=True)
    ap.add_argument("--module", required=True)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--big", action="store_true", help="also the 2 GiB member")
    ap.add_argument("part", nargs="?", default="all")
    a = ap.parse_args()
    a.poolshim, a.module = os.path.abspath(a.poolshim), os.path.abspath(a.module)
    tmp = tempfile.mkdtemp(prefix="poolshim_hostile_")
    os.chmod(tmp, 0o755)
    try:
        parts = {"files": cmd_files, "special": cmd_special, "archives": cmd_archives, "process": cmd_process,
                 "names": cmd_non_utf8, "big": cmd_big_member}
        for name, fn in parts.items():
            if a.part in ("all", name) and (name != "big" or a.big or a.part == "big"):
                sub = os.path.join(tmp, name)
                os.mkdir(sub)
                os.chmod(sub, 0o755)
                fn(a, sub)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main("audit_hostile " + " ".join(sys.argv[-1:]), body)
