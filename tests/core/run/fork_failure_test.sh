#!/usr/bin/env bash
# When the coordinator cannot start a worker (fork fails: here the user's
# process limit), the run fails with the real cause — not "No child
# processes" — and the coordinator neither hangs nor kills its own process
# group while stopping the ranks it never started. Needs root, to run
# dtbench as `nobody` with a process limit of its own (RLIMIT_NPROC does not
# bind root); skips (77) otherwise.
#   fork_failure_test.sh DTBENCH MATRIX_DIR
set -euo pipefail
dtbench=$1 matrices=$2
[[ $(id -u) == 0 ]] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 \
  || { echo "SKIP: needs root, setpriv and a nobody user"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
chown nobody "$scratch"
chmod 755 "$scratch"
fail() { echo "FAIL: $*"; exit 1; }
for limit in 2 3; do  # 2: no worker starts; 3: the scratch reaper does, the worker does not
  set +e
  timeout 60 setpriv --reuid=nobody --regid=nogroup --clear-groups env TMPDIR="$scratch" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" \
    bash -c "ulimit -u $limit; exec '$dtbench' run '$matrices/two_scales.toml' --db '$scratch/r$limit.db'" \
    > "$scratch/out$limit.txt" 2>&1
  code=$?
  set -e
  cat "$scratch/out$limit.txt" | grep -E "FAILED|ok, " || true
  [[ $code == 1 ]] || fail "limit $limit: exit code $code (124: a hang; 137: killed its own group)"
  grep -q "FAILED: cannot start a worker: Resource temporarily unavailable" "$scratch/out$limit.txt" \
    || fail "limit $limit: the cause is not named"
done
echo "PASS"
