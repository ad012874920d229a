#!/usr/bin/env bash
# `dtbench new` as a user meets it: dtbench installed into a scratch prefix;
# a scaffold of every kind written, configured and built out of tree with
# find_package(dtbench) and Ninja, listed by `dtbench plugins`, and its own
# tests passed (dtbench check, its matrix against the built-in plugin, the
# SQL comparison). Then: an existing folder is never written into, and
# examples/local_sgd/CMakeLists.txt is still what `dtbench new strategy
# local_sgd` writes (docs/writing-a-strategy.md starts from it).
#   new_scaffold_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
show() { cat "$scratch/log"; fail "$*"; }
start=$(date +%s)

cmake --install "$build" --prefix "$scratch/prefix" >/dev/null
dtbench=$scratch/prefix/bin/dtbench

for kind_name in strategy:my_sgd backend:my_comm model:my_net dataset:my_data; do
  kind=${kind_name%%:*} name=${kind_name#*:} dir=$scratch/$name
  echo "== dtbench new $kind $name"
  "$dtbench" new "$kind" "$name" --dir "$dir" >"$scratch/log" 2>&1 || show "dtbench new $kind $name"
  grep -q -- "-DCMAKE_PREFIX_PATH=$scratch/prefix$" "$scratch/log" \
    || show "the next steps do not name the install prefix"
  for file in CMakeLists.txt README.md compare.sql "$name.cpp" "$name.toml"; do
    [[ -s $dir/$file ]] || fail "$kind: $file not written"
  done
  ! grep -rq my_plugin "$dir" || fail "$kind: a placeholder is left: $(grep -rn my_plugin "$dir" | head -3)"
  cmake -S "$dir" -B "$dir/build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" >"$scratch/log" 2>&1 \
    || show "$kind: configure failed"
  cmake --build "$dir/build" >"$scratch/log" 2>&1 || show "$kind: build failed"
  "$dtbench" --plugin-path "$dir/build" plugins --kind "$kind" >"$scratch/log" 2>&1 || show "$kind: plugins failed"
  grep -Eq "^$kind +$name +0\.1\.0 +ABI [0-9.]+ +$dir/build/dtbench-$kind-$name\.so$" "$scratch/log" \
    || show "$kind: dtbench plugins does not list $name from $dir/build"
  ctest --test-dir "$dir/build" --output-on-failure >"$scratch/log" 2>&1 \
    || show "$kind: the scaffold's tests failed"
  grep -q "100% tests passed, 0 tests failed out of 4" "$scratch/log" || show "$kind: expected its 4 tests"
done

echo "== an existing folder is refused and left as it was"
mkdir "$scratch/taken" && echo keep >"$scratch/taken/notes.txt"
if "$dtbench" new strategy my_sgd --dir "$scratch/taken" >"$scratch/log" 2>&1; then
  show "wrote into a non-empty folder"
fi
grep -q "$scratch/taken exists and is not empty; dtbench new never overwrites" "$scratch/log" || show "unclear error"
[[ $(ls "$scratch/taken") == notes.txt && $(cat "$scratch/taken/notes.txt") == keep ]] || fail "the folder changed"
mkdir "$scratch/empty"
"$dtbench" new strategy my_sgd --dir "$scratch/empty" >"$scratch/log" 2>&1 || show "an empty folder is refused"
[[ -s $scratch/empty/my_sgd.cpp ]] || fail "nothing written into the empty folder"

echo "== examples/local_sgd starts as dtbench new strategy local_sgd"
"$dtbench" new strategy local_sgd --dir "$scratch/local_sgd" >/dev/null
diff -u "$scratch/local_sgd/CMakeLists.txt" "$source/examples/local_sgd/CMakeLists.txt" \
  || fail "examples/local_sgd/CMakeLists.txt differs from the scaffold's"

echo "ok ($(( $(date +%s) - start )) s)"
