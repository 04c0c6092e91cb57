#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/*_fuzz.cpp) with Debian's clang (-fsanitize=fuzzer,
# address,undefined) and runs each for a short while from its seed corpus (tests/fuzz/<target>/).
# A crash, a sanitizer report or a failed check stops the script with the reproducer's path: turn
# that input into a regression test (tests/unit/fuzz_regression_test.cpp) and commit it.
#
# Usage: scripts/fuzz.sh [seconds per target, default 30] [target...]
#   Build dir: $POOLSHIM_FUZZ_DIR (default build-fuzz/). Targets: options cgroup_parse elf_reader.
#   The committed corpus is only read; new inputs libFuzzer finds go to build-fuzz/corpus/<target>.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh fuzz

seconds="${1:-30}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(options cgroup_parse elf_reader)
out="${POOLSHIM_FUZZ_DIR:-build-fuzz}"
cxx="${CXX_FUZZ:-clang++}"
flags=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -D_GNU_SOURCE -Ishim -Iinclude)

# The shim sources each target needs (the parsers are self-contained; see each target's header).
sources() {
  case "$1" in
    options) echo shim/config/options.cpp shim/config/parse.cpp ;;
    cgroup_parse) echo shim/budget/cgroup_parse.cpp ;;
    elf_reader) echo shim/elf/reader.cpp shim/elf/reader_tables.cpp shim/reach/verdict.cpp \
                   shim/elf/direct_calls.cpp shim/elf/image.cpp shim/reach/surface.cpp shim/base/text.cpp ;;
    *) echo "fuzz.sh: unknown target '$1'" >&2; exit 2 ;;
  esac
}

mkdir -p "$out"
status=0
for t in "${targets[@]}"; do
  bin="$out/${t}_fuzz"
  # shellcheck disable=SC2046
  "$cxx" "${flags[@]}" -o "$bin" "tests/fuzz/${t}_fuzz.cpp" $(sources "$t") -ldl -lpthread
  corpus="$out/corpus/$t"
  rm -rf "$out/artifacts/$t"
  mkdir -p "$corpus" "$out/artifacts/$t"
  echo "fuzz.sh: $t for ${seconds}s (seeds: tests/fuzz/$t/)"
  # -rss_limit_mb and -timeout: a leak or a hang is a finding too (a parser must be fast).
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
       -artifact_prefix="$out/artifacts/$t/" "$corpus" "tests/fuzz/$t" 2>"$out/$t.log"; then
    echo "fuzz.sh: $t FAILED; reproducer(s): $(ls "$out/artifacts/$t/" | tr '\n' ' ')" >&2
    tail -40 "$out/$t.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$out/$t.log" | sed "s/^/fuzz.sh: $t /"
  fi
done
exit $status
