#!/usr/bin/env bash
# The README's second command, and all that CI runs: installs what is
# missing, builds, and runs the whole test suite twice — a normal build, then
# an AddressSanitizer + UndefinedBehaviorSanitizer build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
"$root/tools/install-deps.sh"

run_suite() {  # <build dir> <label> [cmake args...]
  local build=$1 label=$2
  shift 2
  echo "== $label: build ($build)"
  DTBENCH_BUILD_DIR=$build "$root/tools/build.sh" -DDTBENCH_WERROR=ON "$@"
  echo "== $label: test"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 600
}

run_suite "$root/build" "release"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  run_suite "$root/build-sanitize" "asan+ubsan" -DDTBENCH_SANITIZE=ON
