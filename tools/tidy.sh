#!/usr/bin/env bash
# Runs .clang-tidy's checks over the library code (core, plugins, backends,
# models, datasets, reports; C and C++, not CUDA, not tests) with the compile
# commands of a configured build, and fails on any finding.
#   tools/tidy.sh [BUILD_DIR]      (default: build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy) || {
  echo "tidy: no run-clang-tidy (tools/install-deps.sh installs clang-tidy)" >&2
  exit 1
}
[[ -f $build/compile_commands.json ]] || { echo "tidy: no $build/compile_commands.json: build first" >&2; exit 1; }
cd "$root"
mapfile -t files < <(git ls-files 'core/*.cpp' 'plugins/*.cpp' 'backends/*.cpp' 'models/*.cpp' 'datasets/*.cpp' \
  'reports/*.cpp' 'plugins/*.c' 'backends/*.c' 'models/*.c' 'datasets/*.c')
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$tidy" -p "$build" -j "$(nproc)" -quiet "${files[@]/#/$root/}" >"$log" 2>&1; then
  grep -E "(warning|error):" "$log" | grep -v "^/usr/" | sort -u >&2 || tail -n 40 "$log" >&2
  echo "tidy: findings above (.clang-tidy); fix them, or silence one with a NOLINT comment that says why" >&2
  exit 1
fi
echo "tidy: ${#files[@]} files clean"
