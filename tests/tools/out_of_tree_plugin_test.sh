#!/usr/bin/env bash
# The exported package works: install dtbench into a scratch prefix, build
# the C example strategy out of tree with find_package(dtbench), and load it
# with the installed dtbench.
set -euo pipefail
build=$1 source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source/examples/strategy_in_c" -B "$scratch/example" -G Ninja \
  -DCMAKE_PREFIX_PATH="$scratch/prefix" >/dev/null
cmake --build "$scratch/example" >/dev/null
output=$("$scratch/prefix/bin/dtbench" --plugin-path "$scratch/example" plugins example_c)
echo "$output"
grep -q "strategy  example_c" <<<"$output"
grep -q "$scratch/example/dtbench-strategy-example_c.so" <<<"$output"
# Only the entry symbol is exported.
exported=$(nm -D --defined-only "$scratch/example/dtbench-strategy-example_c.so" | awk '$2 == "T" {print $3}')
[[ $exported == "dtb_strategy_plugin_v1" ]] || { echo "exports: $exported"; exit 1; }
echo "ok"
