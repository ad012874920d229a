#!/usr/bin/env bash
# Fails, listing the files, when a C or C++ file of the repository is not
# formatted as .clang-format says (clang-format 14, Debian 12's). Fix with:
#   tools/check-format.sh --fix
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
format=$(command -v clang-format-14 || command -v clang-format) || {
  echo "check-format: no clang-format (tools/install-deps.sh installs it)" >&2
  exit 1
}
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh')
if [[ ${1:-} == --fix ]]; then
  "$format" -i "${files[@]}"
  exit 0
fi
unformatted=()
for f in "${files[@]}"; do
  "$format" --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if (( ${#unformatted[@]} > 0 )); then
  printf 'check-format: not formatted as .clang-format says:\n' >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  printf 'run tools/check-format.sh --fix (clang-format %s)\n' "$("$format" --version | grep -Eo '[0-9]+\.[0-9.]+' | head -1)" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
