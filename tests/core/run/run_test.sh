#!/usr/bin/env bash
# `dtbench run` end to end, as a user runs it: real worker processes over
# Gloo, results in SQLite; failing ranks (killed, erroring, hanging) fail
# their run with a clear error and the matrix goes on; Ctrl-C stops cleanly;
# no worker outlives its run.
#   run_test.sh DTBENCH TEST_PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 plugins=$2 matrices=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }
workers_left() { pgrep -f "dtbench worker --spec $scratch" | wc -l || true; }
export TMPDIR=$scratch  # the runs' scratch directories go here too

echo "== a small matrix runs and is stored"
"$dtbench" --plugin-path "$plugins" run "$matrices/two_scales.toml" --db "$scratch/r.db" > "$scratch/out.txt" 2>&1 \
  || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "2 ok, 0 failed" "$scratch/out.txt" || fail "no success summary"
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM run WHERE status = 'ok'") == 2 ]] || fail "runs not ok"
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM epoch") == 4 ]] || fail "epochs missing"
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM memory") == 3 ]] || fail "one memory row per rank expected"
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM memory WHERE gpu_used_bytes IS NULL") == 3 ]] || fail "a rank on the CPU has a GPU memory figure"
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM plugin_load") == 8 ]] || fail "plugin loads missing"
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM environment WHERE key = 'lib.Gloo'") == 2 ]] || fail "environment missing"
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM scaling WHERE world_size = 2 AND speedup > 0") == 1 ]] || fail "no scaling row"
# Data-parallel training learns: the test accuracy of 4 learnable classes is far above chance.
acc=$(q "$scratch/r.db" "SELECT MIN(final_test_accuracy) FROM run_summary")
python3 -c "import sys; sys.exit(0 if float('$acc') > 0.6 else 1)" || fail "test accuracy $acc"
# Every epoch's step time splits into its phases.
q "$scratch/r.db" "SELECT COUNT(*) FROM epoch WHERE data_s IS NULL OR forward_s <= 0 OR backward_s <= 0" | grep -qx 0 \
  || fail "phase times missing"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

# fault_runs MATRIX DB BACKEND KILL_SUFFIX: runs faults.toml's four cells (rank 1
# killed, erroring, hanging at step 2; then one healthy run) and checks each
# failure is stored with its rank and cause, fast, and the matrix went on.
fault_runs() {
  local matrix=$1 db=$2 backend=$3 kill_suffix=$4 hang_prefix=$5 start elapsed errors
  start=$(date +%s)
  if "$dtbench" --plugin-path "$plugins" run "$matrix" --db "$db" > "$db.txt" 2>&1; then
    fail "$backend: a matrix with failing runs exited 0"
  fi
  elapsed=$(( $(date +%s) - start ))
  (( elapsed < 60 )) || fail "$backend: failures took $elapsed s to detect"
  errors=$(q "$db" "SELECT cell || ': ' || status || ': ' || COALESCE(error, '') FROM run ORDER BY cell")
  echo "$errors"
  grep -q "^0: failed: rank 1 was killed by signal 9 (SIGKILL)$kill_suffix" <<<"$errors" || fail "$backend: kill not reported"
  grep -q "^1: failed: rank 1: strategy 'faulty'.*injected error at step 2$" <<<"$errors" || fail "$backend: error not reported"
  # The hung rank's peer fails in its wait: the backend's timeout, or (MPI running the collective in the
  # waiting caller) the worker's wait guard. The line is quoted when the error holds a comma.
  grep -Eq "^\"?2: failed: $hang_prefix""rank 0: (.*finish_backward failed \(timeout\): )?backend .$backend. on rank 0: " <<<"$errors" \
    || fail "$backend: hang not reported"
  grep -q "^3: ok: $" <<<"$errors" || fail "$backend: the matrix did not go on"
  [[ $(workers_left) == 0 ]] || fail "$backend: workers left behind"
}

echo "== killed, erroring and hanging ranks fail their runs; the matrix goes on"
# Gloo's launcher names the rank that never joined the collective the others timed out in.
fault_runs "$matrices/faults.toml" "$scratch/f.db" gloo '$' \
  "rank 1 never joined the collective \(hung or busy: it reported no error\); "

echo "== a stopped rank (SIGSTOP) is named, not only the rank that timed out waiting for it"
sed 's/fault = \["kill", "error", "hang", "none"\]/fault = "stop"/' "$matrices/faults.toml" > "$scratch/stop.toml"
if "$dtbench" --plugin-path "$plugins" run "$scratch/stop.toml" --db "$scratch/stop.db" > "$scratch/stop.txt" 2>&1; then
  fail "a stopped rank's run passed"
fi
q "$scratch/stop.db" "SELECT error FROM run" | tee /dev/stderr |
  grep -q "^rank 1 is stopped (SIGSTOP or a debugger) and never joined the collective; rank 0: .*(timeout)" \
  || fail "the stopped rank is not named"
[[ $(workers_left) == 0 ]] || fail "a stopped worker was left behind"

echo "== trace = true writes a Chrome trace per rank, named in the event table"
"$dtbench" --plugin-path "$plugins" run "$matrices/traced.toml" --db "$scratch/t.db" > "$scratch/t.txt" 2>&1 \
  || { cat "$scratch/t.txt"; fail "traced run failed"; }
[[ $(q "$scratch/t.db" "SELECT COUNT(*) FROM event WHERE kind = 'trace'") == 6 ]] || fail "a trace per rank and run expected"
q "$scratch/t.db" "SELECT r.strategy, e.detail FROM event e JOIN run r ON r.id = e.run_id WHERE e.kind = 'trace'" |
  while IFS=, read -r strategy file; do
    python3 - "$strategy" "$file" <<'PY' || fail "trace $file"
import json, sys
strategy, path = sys.argv[1], sys.argv[2]
names = {e["name"] for e in json.load(open(path))["traceEvents"] if e.get("ph") == "X"}
expected = {"forward", "backward", "finish_backward wait (exposed)", "finish_backward compute (optimizer)", "optimizer"}
expected |= {"bucketed": {"allreduce"}, "fusion": {"NEGOTIATE", "ALLREDUCE"}, "zero": {"allgather", "reduce_scatter"}}[strategy]
missing = expected - names
if missing: sys.exit(f"{strategy}: {path} lacks {sorted(missing)}")
PY
  done
# A second store in the same folder has its own run 1: its traces go apart.
"$dtbench" --plugin-path "$plugins" run "$matrices/traced.toml" --db "$scratch/t2.db" > "$scratch/t2.txt" 2>&1 \
  || { cat "$scratch/t2.txt"; fail "second traced run failed"; }
[[ $( (q "$scratch/t.db" "SELECT detail FROM event WHERE kind = 'trace'"; \
       q "$scratch/t2.db" "SELECT detail FROM event WHERE kind = 'trace'") | sort -u | wc -l) == 12 ]] \
  || fail "two stores in one folder share trace files"
q "$scratch/t.db" "SELECT detail FROM event WHERE kind = 'trace'" | while read -r file; do
  [[ -s $file && $file == */traces/t/run-* ]] || fail "the first store's trace $file is gone or misplaced"
done

echo "== launcher = \"mpirun\": Gloo (file store beside the database) and MPI ranks started by mpirun"
# Under the sanitizers, Open MPI's own allocations at exit (from components it
# has unloaded by then) are not ours to report: no leak check for MPI jobs.
mpi_asan="${ASAN_OPTIONS:-}:detect_leaks=0"
sed 's/^backend = "gloo"/backend = ["gloo", "mpi"]\nlauncher = "mpirun"/' "$matrices/two_scales.toml" > "$scratch/mpirun.toml"
ASAN_OPTIONS=$mpi_asan "$dtbench" --plugin-path "$plugins" run "$scratch/mpirun.toml" --db "$scratch/m.db" > "$scratch/m.txt" 2>&1 \
  || { cat "$scratch/m.txt"; fail "mpirun matrix failed"; }
[[ $(q "$scratch/m.db" "SELECT COUNT(*) FROM run WHERE status = 'ok'") == 4 ]] || fail "mpirun runs not ok"
[[ $(q "$scratch/m.db" "SELECT COUNT(*) FROM epoch e JOIN run r ON r.id = e.run_id WHERE r.backend = 'mpi'") == 4 ]] || {
  cat "$scratch/m.txt"
  q "$scratch/m.db" "SELECT r.id, r.backend, r.world_size, r.status, (SELECT group_concat(e.epoch) FROM epoch e
                     WHERE e.run_id = r.id), (SELECT COUNT(*) FROM step s WHERE s.run_id = r.id) FROM run r"
  fail "mpi epochs missing"
}
# Every record a rank wrote arrives, though mpirun may forward a line in two
# chunks (launch/tagged_lines.h): each rank's steps (2048 samples shared by
# the ranks, 32 a rank's batch) of both epochs.
[[ $(q "$scratch/m.db" "SELECT COUNT(*) FROM run r WHERE (SELECT COUNT(*) FROM step s WHERE s.run_id = r.id)
                        = 2 * r.world_size * (2048 / r.world_size / 32)") == 4 ]] \
  || fail "mpirun runs lost step records: $(q "$scratch/m.db" "SELECT r.backend, r.world_size,
          (SELECT COUNT(*) FROM step s WHERE s.run_id = r.id) FROM run r" | tr '\n' ' ')"
[[ $(q "$scratch/m.db" "SELECT COUNT(*) FROM memory m JOIN run r ON r.id = m.run_id WHERE r.backend = 'mpi'") == 3 ]] \
  || fail "one memory row per mpi rank expected"

echo "== MPI ranks (mpirun): killed, erroring and hanging ranks fail their runs; the matrix goes on"
sed 's/^backend = "gloo"/backend = "mpi"/' "$matrices/faults.toml" > "$scratch/faults_mpi.toml"
# mpirun's ranks are not our children: the one that said nothing is named with its host.
ASAN_OPTIONS=$mpi_asan fault_runs "$scratch/faults_mpi.toml" "$scratch/fm.db" mpi ' on ' \
  "rank 1 on [^ ]* said nothing before the job ended \(hung, or unreachable\?\); "
[[ $(pgrep -f "mpirun.*$scratch" | wc -l) == 0 ]] || fail "mpirun left behind"

if ! command -v srun > /dev/null; then
  echo "== launcher = \"srun\" where there is no Slurm: the run fails and says so"
  sed 's/^backend = "gloo"/backend = "gloo"\nlauncher = "srun"/' "$matrices/two_scales.toml" > "$scratch/srun.toml"
  if "$dtbench" --plugin-path "$plugins" run "$scratch/srun.toml" --db "$scratch/s.db" > "$scratch/s.txt" 2>&1; then
    fail "ran without srun"
  fi
  q "$scratch/s.db" "SELECT DISTINCT error FROM run" | grep -q "srun exited with code 127: dtbench: cannot start srun: " \
    || fail "missing srun not reported"
fi

if command -v ssh > /dev/null; then
  echo "== launcher = \"ssh\" to a host that does not resolve: the run fails naming the rank, its host and ssh's failure"
  echo "nowhere.invalid slots=2" > "$scratch/unreachable_hosts"  # .invalid: a name that never resolves (RFC 2606)
  sed "s|^backend = \"gloo\"|backend = \"gloo\"\nlauncher = \"ssh\"\nhostfile = \"$scratch/unreachable_hosts\"|; s/^world_size = .*/world_size = 2/" \
    "$matrices/two_scales.toml" > "$scratch/ssh.toml"
  if "$dtbench" --plugin-path "$plugins" run "$scratch/ssh.toml" --db "$scratch/ssh.db" > "$scratch/ssh.txt" 2>&1; then
    fail "ran on a host that does not resolve"
  fi
  grep -q "ssh: Could not resolve hostname nowhere.invalid" "$scratch/ssh.txt" || { cat "$scratch/ssh.txt"; fail "ssh's own message is not shown"; }
  q "$scratch/ssh.db" "SELECT DISTINCT error FROM run" \
    | grep -q "^\"\?rank [01] on nowhere.invalid exited with code 255 (the remote shell could not reach the host or log in" \
    || { q "$scratch/ssh.db" "SELECT error FROM run"; fail "the unreachable host is not named"; }
else
  echo "== no ssh here (openssh-client): the ssh launcher's unreachable host not checked"
fi

echo "== Ctrl-C stops the run and keeps what was stored"
sed 's/fault = \["kill", "error", "hang", "none"\]/fault = "hang"/; s/collective_timeout_s = 3/collective_timeout_s = 120/' \
  "$matrices/faults.toml" > "$scratch/hang.toml"
"$dtbench" --plugin-path "$plugins" run "$scratch/hang.toml" --db "$scratch/f.db" > "$scratch/hang.txt" 2>&1 &
coordinator=$!
sleep 2
kill -INT $coordinator
set +e
wait $coordinator
code=$?
set -e
[[ $code == 130 ]] || { cat "$scratch/hang.txt"; fail "exit code $code after Ctrl-C, expected 130"; }
[[ $(q "$scratch/f.db" "SELECT status FROM run ORDER BY id DESC LIMIT 1") == stopped ]] || fail "run not marked stopped"
[[ $(q "$scratch/f.db" "SELECT COUNT(*) FROM run") == 5 ]] || fail "earlier results lost"
[[ $(q "$scratch/f.db" "PRAGMA integrity_check") == ok ]] || fail "database damaged"
[[ $(workers_left) == 0 ]] || fail "workers left behind"
echo "ok"
