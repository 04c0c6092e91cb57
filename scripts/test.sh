#!/usr/bin/env bash
# Builds poolshim with its tests and runs the suite (every test but those labelled timing); the
# last lines are CTest's summary.
# Installs the Debian packages it needs when they are missing (scripts/deps.sh).
#
# Usage: scripts/test.sh [--sanitize=LIST] [extra ctest args...]
#   Runs every test but those labelled timing (ctest -LE timing): their verdicts depend on timing
#   or a rate (CPU time against wall time, shares of samples or calls), which a busy machine
#   changes. `scripts/test.sh -L timing` runs them (any ctest argument that names the label
#   timing turns the default off), on a quiet machine; README.md, "Set-up: two commands".
#   Build dir: $POOLSHIM_BUILD_DIR (default build/, or build-asan / build-tsan / build-san with
#   --sanitize).
#   --sanitize=address,undefined  builds everything with AddressSanitizer and UBSan (any UB is
#       fatal) and runs the whole suite; preloaded processes get the sanitizer runtime ahead of
#       the shim (tests/CMakeLists.txt, poolshim_sanitizer_env). See docs/sanitizers.md.
#   --sanitize=thread             builds with ThreadSanitizer and runs the tests labelled tsan
#       (the fork and stress tests): ctest -L tsan (and -LE timing, as every run).
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=""
ctest_args=()
for a in "$@"; do
  case "$a" in
    --sanitize=*) sanitize="${a#--sanitize=}" ;;
    *) ctest_args+=("$a") ;;
  esac
done

scripts/deps.sh build test bench openmp
jobs="$(nproc 2>/dev/null || echo 2)"
cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOOLSHIM_BUILD_TESTS=ON -DPOOLSHIM_BUILD_TOOLS=ON)

if [ -z "$sanitize" ]; then
  build="${POOLSHIM_BUILD_DIR:-build}"
  cmake_args+=(-DPOOLSHIM_BUILD_BENCH=ON)
else
  case ",$sanitize," in
    *,thread,*) default_dir=build-tsan
      [ "$sanitize" = thread ] || { echo "test.sh: thread cannot be combined ($sanitize)" >&2; exit 2; } ;;
    *,address,*) default_dir=build-asan ;;
    *) default_dir=build-san ;;
  esac
  build="${POOLSHIM_BUILD_DIR:-$default_dir}"
  flags="-fsanitize=$sanitize -fno-omit-frame-pointer"
  case ",$sanitize," in *,undefined,*) flags+=" -fno-sanitize-recover=undefined" ;; esac
  # The benchmarks are not built: they measure speed, which a sanitizer build does not have.
  cmake_args+=(-DPOOLSHIM_BUILD_BENCH=OFF -DPOOLSHIM_SANITIZE="$sanitize"
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags"
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitize" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=$sanitize"
    -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=$sanitize")
  # ThreadSanitizer runs only the tests labelled tsan (fork, stress, concurrent calls).
  [ "$sanitize" = thread ] && ctest_args=(-L tsan "${ctest_args[@]}")
fi

cmake -S . -B "$build" "${cmake_args[@]}" >/dev/null
cmake --build "$build" -j"$jobs"
# Each test is its own process; two at a time on a 2-core machine. No test of the default set
# asserts on time: those that do carry the label timing and are left out, unless asked for.
case " ${ctest_args[*]-} " in
  *timing*) ;;
  *) ctest_args=(-LE timing "${ctest_args[@]}") ;;
esac
exec ctest --test-dir "$build" --output-on-failure -j"$jobs" "${ctest_args[@]}"
