#!/usr/bin/env bash
# The README's second command, and all that CI runs: installs what is
# missing, checks the formatting, builds, runs .clang-tidy's checks over the
# library code, and runs the whole test suite twice — a normal build, then
# an AddressSanitizer + UndefinedBehaviorSanitizer build — and then each fuzz
# target for a short while ($DTBENCH_FUZZ_SECONDS, default 30).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

# Each stage's wall time, printed at the end however the run ends: what a
# fresh machine spends where (issue 33 asks the whole under 30 minutes).
stage_names=() stage_seconds=()
stage_started=$SECONDS stage_current=""
stage() {  # stage NAME: ends the current stage, begins NAME
  if [[ -n $stage_current ]]; then
    stage_names+=("$stage_current")
    stage_seconds+=($((SECONDS - stage_started)))
  fi
  stage_current=$1 stage_started=$SECONDS
  [[ -z $1 ]] || echo "== $1"
}
print_stage_times() {
  local i
  stage ""
  echo "== stage times (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
  for i in "${!stage_names[@]}"; do
    printf '  %-28s %4d min %2d s\n' "${stage_names[$i]}" $((stage_seconds[i] / 60)) $((stage_seconds[i] % 60))
  done
}
trap print_stage_times EXIT

stage "install-deps"
"$root/tools/install-deps.sh" --tests
stage "format"
"$root/tools/check-format.sh"

run_suite() {  # <build dir> <label> [cmake args...]
  local build=$1 label=$2
  shift 2
  stage "$label: build"
  DTBENCH_BUILD_DIR=$build "$root/tools/build.sh" -DDTBENCH_WERROR=ON "$@"
  stage "$label: test"
  ctest --test-dir "$build" --output-on-failure -j "$jobs" --timeout 600
}

run_suite "$root/build" "release"
stage "tidy"
"$root/tools/tidy.sh" "$root/build"
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads the dynamic TLS
# of dlopen'ed libraries on glibc 2.36 (a bogus "DTLS 7 at 0xa9f-0x2400001ba1"
# range under LSAN_OPTIONS=verbosity=1) and its tracer then crashes at exit
# ("Tracer caught signal 11", the process aborts): now and then on a 2-rank
# run, every time with verbosity on; nothing in our code. Leaks are still checked; only
# the dynamic TLS blocks are not scanned as roots, which can only add
# reports, never hide one. One OpenMP thread keeps the suite's 2 cores free.
# Without CUDA: nothing of it runs on a machine without a GPU, where the
# sanitizers are checked (the release build above builds it, and its suite
# runs the GPU tests or their refusals); its nvcc objects and NCCL backend
# were a fifth of this build's time.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:intercept_tls_get_addr=0 UBSAN_OPTIONS=print_stacktrace=1 OMP_NUM_THREADS=1 \
  run_suite "$root/build-sanitize" "asan+ubsan" -DDTBENCH_SANITIZE=ON -DDTBENCH_CUDA=OFF

stage "fuzz: build"
CC=clang CXX=clang++ DTBENCH_BUILD_DIR="$root/build-fuzz" DTBENCH_BUILD_TARGETS=matrix_fuzz "$root/tools/build.sh" \
  -DDTBENCH_FUZZ=ON -DDTBENCH_CUDA=OFF -DDTBENCH_WERROR=ON
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"; print_stage_times' EXIT
stage "fuzz: run ${DTBENCH_FUZZ_SECONDS:-30} s"
if ! (cd "$corpus" && "$root/build-fuzz/bin/matrix_fuzz" -max_total_time="${DTBENCH_FUZZ_SECONDS:-30}" \
      "$corpus" "$root/tests/fuzz/seeds" >"$corpus/fuzz.log" 2>&1); then
  tail -n 60 "$corpus/fuzz.log"
  echo "fuzz: the matrix fuzzer found a crash (input above, base64); add it to tests/fuzz/seeds once fixed" >&2
  exit 1
fi
grep -E "^Done [0-9]+ runs" "$corpus/fuzz.log" || true
echo "fuzz: no crash"
