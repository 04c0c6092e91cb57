#!/usr/bin/env bash
# The wheel's bundled command without libarchive at start-up (issue 36, docs/poolshim-command.md,
# "What the command needs"): the two candidates, measured side by side.
#   (a) the wheel scripts/wheel.sh makes: the command dlopen()s libarchive.so.13 where it reads an
#       archive (tools/archive_lib.h); nothing else bundled.
#   (b) the same wheel with libarchive and every library it needs that is not the C library's
#       (and libstdc++.so.6, which libicuuc needs at GLIBCXX_3.4.30, newer than RHEL 9's) copied
#       into poolshim/_bundle/lib with RUNPATH $ORIGIN, and the command given DT_NEEDED
#       libarchive.so.13 and RUNPATH $ORIGIN/../lib (patchelf): the libraries load at start-up.
# Prints each wheel's size, installed size and newest GLIBC_2.X, then hyperfine's median of RUNS
# runs of `--version`, `info`, `audit` of a plain ELF file and of the wheel itself, and the load
# average before and after.
#
# usage: bench/wheel_candidates.sh [--build-dir DIR] [--runs N]   (DIR built already; default build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=build RUNS=50
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) BUILD_DIR=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "wheel_candidates.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
  esac
done
for tool in hyperfine patchelf objdump /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "wheel_candidates.sh: needs $tool (scripts/deps.sh bench test)" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poolshim-candidates.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
wheel=$(scripts/wheel.sh --build-dir "$BUILD_DIR" --no-build --out "$tmp/a" 2>/dev/null | tail -n 1)
unpack() { /usr/bin/python3 -m wheel unpack "$1" -d "$2" >/dev/null; chmod +x "$2"/poolshim-*/poolshim/_bundle/bin/poolshim; }
unpack "$wheel" "$tmp/ua"
unpack "$wheel" "$tmp/ub"
b=$(echo "$tmp"/ub/poolshim-*)
multiarch=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
libs=()
for l in $(ldd "$multiarch/libarchive.so.13" | awk '/=>/ {print $1}') libarchive.so.13; do
  case "$l" in libc.so.*|libm.so.*|libgcc_s.so.*|ld-linux*) continue ;; esac
  cp -L "$multiarch/$l" "$b/poolshim/_bundle/lib/$l"
  strip --strip-unneeded "$b/poolshim/_bundle/lib/$l"
  patchelf --set-rpath '$ORIGIN' "$b/poolshim/_bundle/lib/$l"
  libs+=("$l")
done
patchelf --add-needed libarchive.so.13 "$b/poolshim/_bundle/bin/poolshim"
patchelf --set-rpath '$ORIGIN/../lib' "$b/poolshim/_bundle/bin/poolshim"
mkdir -p "$tmp/b"
/usr/bin/python3 -m wheel pack "$b" -d "$tmp/b" >/dev/null
echo "(b) bundles: ${libs[*]}"
for c in a b; do
  w=$(echo "$tmp/$c"/*.whl)
  files=$(echo "$tmp/u$c"/poolshim-*/poolshim/_bundle)
  glibc=$(objdump -T "$files"/lib/* "$files"/bin/* 2>/dev/null | grep -oE 'GLIBC_2\.[0-9]+' | sort -t. -k2 -n -u | tail -n 1)
  printf '(%s) wheel %s KiB, installed %s KiB, needs %s\n' "$c" "$(( $(stat -c %s "$w") / 1024 ))" \
    "$(du -sk "$files" | cut -f1)" "$glibc"
done
A=$(echo "$tmp"/ua/poolshim-*/poolshim/_bundle/bin/poolshim)
B=$b/poolshim/_bundle/bin/poolshim
elf=$(echo "$tmp"/ua/poolshim-*/poolshim/_bundle/lib/libpoolshim.so)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
hyperfine -N --runs "$RUNS" --warmup 5 --export-json "$tmp/hf.json" \
  "$A --version" "$B --version" "$A info" "$B info" \
  "$A audit $elf" "$B audit $elf" "$A audit $wheel" "$B audit $wheel" >/dev/null 2>&1
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$tmp/hf.json" "$A" "$B" "$elf" "$wheel" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
a, b, elf, wheel = sys.argv[2:]
for r in res:
    c = r["command"].replace(a, "(a) poolshim").replace(b, "(b) poolshim").replace(elf, "ELF").replace(wheel, "WHEEL")
    print("%-28s median %6.2f ms  min %6.2f ms" % (c, r["median"] * 1e3, r["min"] * 1e3))
PY
