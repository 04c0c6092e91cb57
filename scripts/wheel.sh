#!/usr/bin/env bash
# Builds the Python wheel: dist/poolshim-<version>-py3-none-manylinux_2_<X>_<arch>.whl, holding the
# pure-Python module, libpoolshim.so and the `poolshim` command (poolshim/_bundle/{lib,bin}), and
# the `poolshim` console script. No network: Debian's pip, setuptools and wheel (scripts/deps.sh
# test) build it from a CMake build tree, without build isolation or an index.
#
# The platform tag is PEP 600's manylinux_2_<X>_<arch>: X is the highest GLIBC_2.X symbol version
# that any bundled ELF file needs (objdump -T), so pip installs it on every glibc 2.X or newer.
# Both files need only libc, libgcc_s and ld.so (manylinux's allowed libraries): libarchive is
# loaded by the command where it reads an archive (tools/archive_lib.h).
#
# Usage: scripts/wheel.sh [--build-dir DIR] [--out DIR] [--no-build]
#   --build-dir DIR  the CMake build tree to take the library and the command from
#                    (default: build-wheel/, configured here as a Release build without tests)
#   --out DIR        where the wheel goes (default: dist/)
#   --no-build       use DIR as it is (the tests: it was built already)
#   PYTHON           the interpreter whose pip builds the wheel (default: /usr/bin/python3)
# Prints the wheel's path last.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$src/build-wheel"
out="$src/dist"
do_build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$(realpath -m "$2")"; shift 2 ;;
    --out) out="$(realpath -m "$2")"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    *) echo "wheel.sh: unknown argument '$1' (see the comment at the top)" >&2; exit 2 ;;
  esac
done
py="${PYTHON:-/usr/bin/python3}"

if [ "$do_build" = 1 ]; then
  "$src/scripts/deps.sh" build test >&2
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPOOLSHIM_BUILD_TESTS=OFF \
      -DPOOLSHIM_BUILD_TOOLS=ON -DPOOLSHIM_BUILD_BENCH=OFF >&2
  fi
  cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target poolshim poolshim_cli >&2
fi
for f in "$build/lib/libpoolshim.so" "$build/bin/poolshim" "$build/python-wheel/_build.py"; do
  [ -e "$f" ] || { echo "wheel.sh: $f is missing: build $build first (without --no-build)" >&2; exit 2; }
done

stage="$(mktemp -d "${TMPDIR:-/tmp}/poolshim-wheel.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/poolshim/_bundle/lib" "$stage/poolshim/_bundle/bin"
# The build tree's copy of the module (cmake/packaging.cmake lists its files), with the wheel's
# _build.py in place of the build tree's.
for f in "$build/python/poolshim/"*.py; do
  [ "$(basename "$f")" = _build.py ] || cp "$f" "$stage/poolshim/"
done
cp "$build/python-wheel/_build.py" "$stage/poolshim/_build.py"
# One real file each (a wheel holds no symbolic links); debug information stays in the build tree.
cp -L "$build/lib/libpoolshim.so" "$stage/poolshim/_bundle/lib/libpoolshim.so"
cp -L "$build/bin/poolshim" "$stage/poolshim/_bundle/bin/poolshim"
if command -v strip >/dev/null; then
  strip --strip-debug "$stage/poolshim/_bundle/lib/libpoolshim.so" "$stage/poolshim/_bundle/bin/poolshim"
fi
cp "$src/python/setup.py" "$src/README.md" "$src/LICENSE" "$stage/"

# manylinux_2_X: the newest GLIBC_2.X any bundled file needs (GLIBC_2.2.5 reads as 2).
command -v objdump >/dev/null || { echo "wheel.sh: no objdump (binutils) to read the files' glibc versions" >&2; exit 2; }
bundled=("$stage/poolshim/_bundle/lib/libpoolshim.so" "$stage/poolshim/_bundle/bin/poolshim")
glibc_minor="$(objdump -T "${bundled[@]}" | sed -n 's/.*(GLIBC_2\.\([0-9][0-9]*\)[.)].*/\1/p' | sort -n | tail -n 1)"
[ -n "$glibc_minor" ] || { echo "wheel.sh: no GLIBC_2.* version read from ${bundled[*]}" >&2; exit 2; }
export POOLSHIM_WHEEL_PLATFORM="manylinux_2_${glibc_minor}_$(uname -m)"
echo "wheel.sh: the bundled files need GLIBC_2.$glibc_minor at most: $POOLSHIM_WHEEL_PLATFORM" >&2

mkdir -p "$out"
"$py" -m pip wheel --quiet --no-deps --no-build-isolation --no-index --disable-pip-version-check \
  --wheel-dir "$out" "$stage" >&2
version="$(sed -n 's/^VERSION = "\(.*\)"$/\1/p' "$stage/poolshim/_build.py")"
ls -t "$out"/poolshim-"$version"-py3-none-*.whl | head -n 1
