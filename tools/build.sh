#!/usr/bin/env bash
# Configures and builds dtbench into build/ (or $DTBENCH_BUILD_DIR), with
# extra CMake arguments passed through: tools/build.sh -DDTBENCH_SANITIZE=ON.
# $DTBENCH_BUILD_TARGETS (space-separated) builds only those targets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${DTBENCH_BUILD_DIR:-$root/build}
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja "$@" >"$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2
  exit 1
}
# shellcheck disable=SC2086  # the targets are words
ninja -C "$build" ${DTBENCH_BUILD_TARGETS:-}
