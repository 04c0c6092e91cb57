#!/bin/sh
# Formats the C and C++ sources with .clang-format (clang-format from Debian: scripts/deps.sh format).
#   scripts/format.sh          rewrite the files in place
#   scripts/format.sh --check  list the files that are not formatted, exit 1 if there are any
set -eu
cd "$(dirname "$0")/.."
files=$(git ls-files 'shim/*.cpp' 'shim/*.h' 'tools/*.cpp' 'tools/*.h' 'tests/*.cpp' 'tests/*.h' 'include/*.h')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in $files; do
    if ! clang-format "$f" | cmp -s - "$f"; then echo "$f"; bad=1; fi
  done
  exit $bad
fi
# shellcheck disable=SC2086
clang-format -i $files
