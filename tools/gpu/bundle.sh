#!/usr/bin/env bash
# Packs a CUDA build of this tree for a lent GPU machine (the library's
# `device`), whose image has the CUDA toolkit, cuDNN and NCCL but none of
# dtbench's other libraries and no way to fetch them: the build tree as
# ctest reads it (binaries, plugins, test files; no objects), stripped, and
# the shared libraries its programs need that are neither CUDA's nor the C
# runtime's (oneDNN, Gloo, TOML++, SQLite, ...), in one archive small enough
# to carry. tools/gpu/checks.sh unpacks it there and runs the GPU checks.
#   tools/gpu/bundle.sh [BUILD_DIR] [ARCHIVE]
#     BUILD_DIR  a build with CUDA (default build-cuda:
#                DTBENCH_BUILD_DIR=build-cuda tools/build.sh)
#     ARCHIVE    default .device/dtbench-gpu.tar.xz (git ignores .device/)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${1:-$root/build-cuda}")
archive=$(realpath -m "${2:-$root/.device/dtbench-gpu.tar.xz}")
[[ -x $build/bin/dtbench ]] || {
  echo "bundle: no bin/dtbench in $build: build it first (DTBENCH_BUILD_DIR=$build tools/build.sh)" >&2
  exit 1
}
ldd "$build/bin/dtbench" 2>/dev/null | grep -q libcudart \
  || echo "bundle: warning: $build was built without CUDA; its GPU tests will only skip" >&2

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build" "$stage/deps"
# What ctest and the GPU checks read; not what only rebuilding needs, nor
# the fuzzer's replay and the plugin SDK's suite (nothing of the GPU).
# (Tests running meanwhile may write in the tree: a file changed or gone
# while read is no error here; tar's 1.)
tar -C "$build" --exclude='*.o' --exclude='*.a' --exclude='CMakeFiles' --exclude='*.ninja' \
  --exclude='.ninja_*' --exclude='Testing' --exclude='matrix_fuzz_replay' --exclude='plugin_tests' \
  --ignore-failed-read --warning=no-file-changed --warning=no-file-removed -cf "$stage/tree.tar" . \
  || (($? == 1))
tar -C "$stage/build" -xf "$stage/tree.tar"
rm "$stage/tree.tar"
is_elf() { [[ $(head -c 4 "$1" | tr -d '\0') == $'\x7fELF' ]]; }
elves=()
while IFS= read -r -d '' f; do
  if is_elf "$f"; then elves+=("$f"); fi
done < <(find "$stage/build" -type f -print0)
strip --strip-unneeded "${elves[@]}"
# Their libraries, but the loader's and the C runtime's (the image has
# newer ones), the driver's and the CUDA toolkit's (the image's own match
# its driver).
ldd "${elves[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u | while read -r lib; do
  case $(basename "$lib") in
    ld-linux* | libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | libgcc_s.so* | libstdc++.so*) continue ;;
    libcuda.so* | libnvidia-* | libcudart* | libcublas* | libcudnn* | libnccl* | libnvjpeg* | libnvrtc*) continue ;;
  esac
  [[ $lib == /usr/local/cuda* ]] && continue
  cp -L "$lib" "$stage/deps/"
done
# Where ctest's files say the sources and the build are.
sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" > "$stage/SOURCE_ROOT"
echo "$build" > "$stage/BUILD_PATH"
git -C "$root" rev-parse HEAD > "$stage/COMMIT" 2>/dev/null || echo unknown > "$stage/COMMIT"
mkdir -p "$(dirname "$archive")"
tar -C "$stage" -cf - . | xz -T0 "${XZ_LEVEL:--6}" > "$archive"
echo "bundle: $archive ($(du -h "$archive" | cut -f1); $(ls "$stage/deps" | wc -l) libraries; commit $(cut -c1-7 "$stage/COMMIT"))"
