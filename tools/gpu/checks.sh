#!/usr/bin/env bash
# On a lent GPU machine, from the repository's root there: unpacks what
# tools/gpu/bundle.sh packed here and runs docs/gpu.md's GPU checks, each
# bounded, each one's output in a log of its own, and a summary line per
# check. Elsewhere it runs too: every GPU test then skips in one line.
#   tools/gpu/checks.sh STAGE... [-- ARCHIVE]
#     tests            the GPU cases of the three suites (kernels, NCCL and
#                      staging, the layers and models against the host)
#     training, strategies, mixed_precision
#                      run.gpu_training, run.gpu_strategies, run.gpu_mixed_precision
#     runs             those three
#     example          examples/gpu.toml (ResNet-50: four strategies, fp32 and fp16)
#     bench            bench/gpu_training/compare.sh (one GPU's step against PyTorch)
#                      and fused_optimizer.sh (the fused optimizer against a kernel per parameter)
#     hand_off         bench/gpu_training/hand_off.sh (hooks with the GPU's work queued against waiting)
#   ARCHIVE defaults to .device/dtbench-gpu.tar.xz; it is unpacked beside
#   itself (unpacked/, replaced each time). Logs go to $OUT (the device's
#   folder that comes back), else .device/logs.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
stages=() archive=$root/.device/dtbench-gpu.tar.xz
while (($#)); do
  if [[ $1 == -- ]]; then archive=$2; break; fi
  stages+=("$1")
  shift
done
((${#stages[@]})) || { sed -n '2,/^set /p' "$0" | grep '^#'; exit 2; }
for stage in "${stages[@]}"; do
  case $stage in
    tests | training | strategies | mixed_precision | runs | example | bench | hand_off) ;;
    *)
      echo "checks: unknown stage '$stage' (tests, training, strategies, mixed_precision, runs, example, bench, hand_off)" >&2
      exit 2
      ;;
  esac
done
logs=${OUT:-$root/.device/logs}
mkdir -p "$logs"
summary=$logs/summary.txt
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

[[ -f $archive ]] || { echo "checks: no $archive: make it with tools/gpu/bundle.sh where the tree was built" >&2; exit 1; }
unpacked=$(dirname "$(realpath "$archive")")/unpacked
rm -rf "$unpacked" && mkdir -p "$unpacked"
tar -C "$unpacked" -xJf "$archive" || { echo "checks: cannot unpack $archive" >&2; exit 1; }
source_root=$(cat "$unpacked/SOURCE_ROOT") build=$(cat "$unpacked/BUILD_PATH")
# ctest's files, and the test programs (their plugin folder), name the
# paths of the machine that built the tree. Where those do not exist here,
# or are links (an earlier unpacking), they are made to point at this
# checkout and at this unpacking; where they are real, this is that
# machine, and its own tree is run.
link() {  # link PATH TARGET
  [[ -e $1 && ! -L $1 ]] && return 0
  mkdir -p "$(dirname "$1")" 2>/dev/null && ln -sfn "$2" "$1" 2>/dev/null && return 0
  say "cannot make $1 point at $2 (ctest's paths will not resolve: run as root, or from a checkout at $1)"
}
link "$source_root" "$root"
link "$build" "$unpacked/build"
# The bundle's libraries, then CUDA's: the toolkit's, else the wheels of
# the image's PyTorch (cuDNN, NCCL, cuBLAS).
cuda_libs=$(python3 -c 'import glob, os, nvidia; print(":".join(sorted(glob.glob(os.path.join(list(nvidia.__path__)[0], "*", "lib")))))' 2>/dev/null || true)
export LD_LIBRARY_PATH=$unpacked/deps:/usr/local/cuda/lib64:/usr/local/cuda/lib${cuda_libs:+:$cuda_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# The suites, the example and the bench run the unpacked programs (here
# too, so a library the bundle lacks shows wherever it is tried); ctest
# runs the tree its files name.
bin=$unpacked/build/bin

say "commit $(cat "$unpacked/COMMIT"), built at $build from $source_root"
say "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi: no GPU here')"
missing=$(ldd "$bin"/* "$unpacked"/build/lib/dtbench/plugins/*.so 2>/dev/null | grep "not found" | sort -u)
[[ -z $missing ]] || say "missing libraries: $missing"
"$bin/dtbench" --version > /dev/null 2>&1 || say "the unpacked dtbench does not start: $("$bin/dtbench" --version 2>&1 | head -3)"

failed=0
check() {  # check NAME SECONDS COMMAND...: bounded, logged, summarised
  local name=$1 limit=$2 started=$SECONDS rc
  shift 2
  (cd "$root" && timeout -k 10 "$limit" "$@") > "$logs/$name.log" 2>&1
  rc=$?
  local verdict=passed
  if ((rc == 124 || rc == 137)); then verdict="TIMED OUT after $limit s"; elif ((rc != 0)); then verdict="FAILED (exit $rc)"; fi
  ((rc == 0)) || failed=1
  local skipped  # gtest's cases, ctest's tests and the shell tests' own skips
  skipped=$(grep -cE "^\[  SKIPPED \] .* \([0-9]+ ms\)$|\*\*\*Skipped|^SKIP:" "$logs/$name.log" || true)
  say "$(printf '%-16s %-24s %4d s  %3d skipped; log %s' "$name" "$verdict" $((SECONDS - started)) "$skipped" "$name.log")"
  ((rc == 0)) || tail -n 25 "$logs/$name.log"
}
run_test() {  # run_test NAME: one run.gpu_* test through ctest, within a device call's 10 minutes
  check "$1" 580 ctest --test-dir "$build" -R "^run\.gpu_$1\$" --output-on-failure --timeout 570
}

for stage in "${stages[@]}"; do
  case $stage in
    tests)
      check core_gpu 120 "$bin/core_tests" --gtest_filter='Gpu*:CudaProbe*'
      check backend_gpu 180 "$bin/backend_tests" --gtest_filter='Nccl*:HostGpuMemory.*'
      check model_gpu 240 "$bin/model_tests" --gtest_filter='*Cuda*:*Gpu*'
      ;;
    training | strategies | mixed_precision) run_test "$stage" ;;
    runs) for t in training strategies mixed_precision; do run_test "$t"; done ;;
    example) check gpu_example 580 "$bin/dtbench" run examples/gpu.toml --db "$logs/gpu.db" ;;
    bench)
      check gpu_bench 300 env GPU_TRAIN_BENCH="$bin/gpu_train_bench" bench/gpu_training/compare.sh
      check fused_optimizer 270 env DTBENCH="$bin/dtbench" bench/gpu_training/fused_optimizer.sh
      ;;
    hand_off) check hand_off 300 env DTBENCH="$bin/dtbench" bench/gpu_training/hand_off.sh ;;
  esac
done
exit $failed
