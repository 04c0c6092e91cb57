#!/usr/bin/env bash
# Installs the Debian packages poolshim needs, only those that are missing.
# Usage: scripts/deps.sh [build] [test] [bench] [torch] [fuzz] [format] [openmp]   (default: build test)
# Runs `apt-get update` at most once per call, and only when something is missing.
set -euo pipefail

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build test)

pkgs=()
for g in "${groups[@]}"; do
  case "$g" in
    build) pkgs+=(cmake g++ make pkg-config libpthreadpool-dev libcpuinfo-dev libarchive-dev nlohmann-json3-dev) ;;
    # python3-venv/-pip/-setuptools/-wheel: scripts/wheel.sh and the wheel's venv test (no network);
    # patchelf: proc_util.AsUser (copies of hosts run as nobody); python3-threadpoolctl: poolshim
    # beside Debian's threadpoolctl (tests/process/threadpoolctl_driver.py)
    test)  pkgs+=(libgtest-dev python3-dev python3 dpkg-dev python3-venv python3-pip python3-setuptools python3-wheel patchelf python3-threadpoolctl) ;;
    bench) pkgs+=(libbenchmark-dev gnuplot-nox hyperfine) ;;
    torch) pkgs+=(python3-torch python3-threadpoolctl) ;;  # threadpoolctl: the pools view is checked against it
    fuzz)  pkgs+=(clang libclang-rt-14-dev) ;;  # libFuzzer and the sanitizer runtimes (scripts/fuzz.sh)
    format) pkgs+=(clang-format) ;;  # scripts/format.sh
    openmp) pkgs+=(gcc-12-source libomp5-14 clang-14 libomp-14-dev) ;;  # GCC's libgomp testsuite (scripts/libgomp_suite.sh); LLVM's libomp for the bench and the suite's clang column
    *) echo "deps.sh: unknown group '$g' (build, test, bench, torch, fuzz, format, openmp)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps.sh: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
