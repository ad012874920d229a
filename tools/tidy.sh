#!/usr/bin/env bash
# Runs .clang-tidy's checks over the library code (core, plugins, backends,
# models, datasets, reports; C and C++, not CUDA, not tests) with the compile
# commands of a configured build, and fails on any finding.
#   tools/tidy.sh [BUILD_DIR]      (default: build/)
#
# A unity build (the default, DTBENCH_UNITY_BUILD) compiles batches of files
# that CMake writes into the build tree; tidy then checks those batches, so
# each header is parsed once a batch rather than once a file (2 min instead
# of 10 on two cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy) || {
  echo "tidy: no run-clang-tidy (tools/install-deps.sh installs clang-tidy)" >&2
  exit 1
}
[[ -f $build/compile_commands.json ]] || { echo "tidy: no $build/compile_commands.json: build first" >&2; exit 1; }
cd "$root"
rooms=(core plugins backends models datasets reports)
mapfile -t library < <(git ls-files "${rooms[@]/%//*.cpp}" "${rooms[@]/%//*.c}")

# The translation units that compile the library: its own files, or the
# unity batches that include them. A file this configuration does not
# compile (a *_none.cpp stand-in where CUDA is found) is checked on its
# own, with the flags clang-tidy borrows from its folder's neighbours.
units=$(mktemp)
log=$(mktemp)
trap 'rm -f "$units" "$log"' EXIT
python3 - "$build" "$root" "${rooms[*]}" "${library[@]}" >"$units" <<'EOF'
import json, os, re, sys
build, root, rooms, library = sys.argv[1], sys.argv[2], set(sys.argv[3].split()), set(sys.argv[4:])
covered, units = set(), []
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = os.path.join(entry["directory"], entry["file"])
    if path.endswith(".cu"):
        continue
    if os.path.relpath(path, root) in library:
        units.append(path)
        covered.add(os.path.relpath(path, root))
    elif "/Unity/" in path and os.path.relpath(path, build).split(os.sep)[0] in rooms:
        units.append(path)
        for line in open(path):
            m = re.match(r'#include "(.*)"', line)
            if m:
                covered.add(os.path.relpath(m.group(1), root))
units += [os.path.join(root, f) for f in library if f not in covered]
print("\n".join(sorted(set(units))))
EOF
mapfile -t unit_list <"$units"

# clang-tidy finds .clang-tidy from each file's folder up: a build tree
# outside the repository would otherwise be checked with clang's defaults.
cp "$root/.clang-tidy" "$build/.clang-tidy"
# bugprone-suspicious-include would flag every line of CMake's unity
# batches (#include "x.cpp" is what they are); the same rule over our own
# files is the grep below.
if ! "$tidy" -p "$build" -j "$(nproc)" -quiet -checks=-bugprone-suspicious-include "${unit_list[@]}" >"$log" 2>&1; then
  grep -E "(warning|error):" "$log" | grep -v "^/usr/" | sort -u >&2 || tail -n 40 "$log" >&2
  echo "tidy: findings above (.clang-tidy); fix them, or silence one with a NOLINT comment that says why" >&2
  exit 1
fi
if git grep -nE '^\s*#\s*include\s*["<][^">]*\.(c|cc|cpp|cxx)[">]' -- "${rooms[@]}" include >&2; then
  echo "tidy: a source file included above (bugprone-suspicious-include): include its header" >&2
  exit 1
fi
echo "tidy: ${#library[@]} files clean (${#unit_list[@]} translation units)"
