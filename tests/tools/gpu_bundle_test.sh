#!/usr/bin/env bash
# tools/gpu/bundle.sh and tools/gpu/checks.sh on the build under test: the
# archive holds the build tree's programs, stripped, with ctest's files and
# the libraries a lent GPU machine lacks (oneDNN, Gloo, TOML++, SQLite), but
# no objects and not the C runtime's or CUDA's libraries; checks.sh unpacks
# it, starts the unpacked dtbench, and runs the `tests` stage from it (its
# GPU cases skip without a GPU), one summary line a check.
#   gpu_bundle_test.sh BUILD_DIR
set -euo pipefail
build=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
archive=$scratch/bundle.tar.xz

echo "== the archive"
XZ_LEVEL=-0 "$root/tools/gpu/bundle.sh" "$build" "$archive" > "$scratch/bundle.txt" 2>&1 \
  || { cat "$scratch/bundle.txt"; fail "bundle.sh failed"; }
cat "$scratch/bundle.txt"
tar -tJf "$archive" > "$scratch/list.txt"
for f in ./build/bin/dtbench ./build/bin/core_tests ./build/bin/backend_tests ./build/bin/model_tests \
         ./build/lib/dtbench/plugins/dtbench-model-resnet.so ./build/CTestTestfile.cmake \
         ./SOURCE_ROOT ./BUILD_PATH ./COMMIT; do
  grep -qxF "$f" "$scratch/list.txt" || fail "$f is not in the archive"
done
for lib in libdnnl libgloo libtomlplusplus libsqlite3; do
  grep -q "^\./deps/$lib\.so" "$scratch/list.txt" || fail "$lib is not among the archive's libraries"
done
if grep -E "^\./deps/(libc\.so|libm\.so|libstdc\+\+|libcuda\.so|libcudart|libnccl|libcudnn)" "$scratch/list.txt"; then
  fail "the archive carries a library the machine has its own of (above)"
fi
if grep -m 3 -E "\.o$|\.a$|/CMakeFiles/|matrix_fuzz_replay" "$scratch/list.txt"; then
  fail "the archive carries what only rebuilding needs (above)"
fi
mkdir "$scratch/x"
tar -C "$scratch/x" -xJf "$archive" ./build/bin/dtbench
if readelf -S "$scratch/x/build/bin/dtbench" | grep -qE "\.debug_info|\.symtab"; then
  fail "the archive's dtbench is not stripped"
fi
[[ $(tar -xOJf "$archive" ./SOURCE_ROOT) == "$root" ]] \
  || fail "the archive does not say where the sources were"

echo "== checks.sh from the archive"
OUT=$scratch/logs "$root/tools/gpu/checks.sh" tests -- "$archive" > "$scratch/checks.txt" 2>&1 \
  || { cat "$scratch/checks.txt"; fail "checks.sh tests failed"; }
cat "$scratch/logs/summary.txt"
for check in core_gpu backend_gpu model_gpu; do
  grep -qE "^$check +passed" "$scratch/logs/summary.txt" || fail "no passed line for $check"
  [[ -s $scratch/logs/$check.log ]] || fail "no log for $check"
done
grep -q "^missing libraries" "$scratch/logs/summary.txt" && fail "the unpacked programs miss a library"
grep -q "does not start" "$scratch/logs/summary.txt" && fail "the unpacked dtbench does not start"
OUT=$scratch/logs "$root/tools/gpu/checks.sh" nonsense -- "$archive" > "$scratch/bad.txt" 2>&1 \
  && fail "an unknown stage was taken"
grep -q "unknown stage 'nonsense'" "$scratch/bad.txt" || { cat "$scratch/bad.txt"; fail "the unknown stage is not named"; }
[[ -d $scratch/unpacked/build/bin ]] || fail "checks.sh did not unpack beside the archive"
echo "PASS"
