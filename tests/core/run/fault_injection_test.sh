#!/usr/bin/env bash
# Faults the host injects into any strategy's run ([fault]; matrices/
# injected_faults.toml, rank 1 of 2 from step 3): a kill fails the run naming
# the rank and keeps its first 3 steps; a stop shorter than the collective
# timeout delays rank 0's step 3 by the stop and the run ends well, a longer
# one fails naming the stopped rank; a slow rank's steps take slow_ms longer
# as forward time and its peer waits for it; every fault is an event of its
# run, and its settings are stored with the run; nothing is left running.
# Over MPI, a peer stuck in a wait that runs the collective itself is ended
# by the worker's wait guard. A fault that names no rank of the run is
# refused before anything runs.
#   fault_injection_test.sh DTBENCH MATRIX_DIR
set -euo pipefail
dtbench=$1 matrices=$2
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/f.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch

echo "== kill, stop (1 s and 8 s, timeout 3 s), slow, none"
if "$dtbench" run "$matrices/injected_faults.toml" --db "$db" > "$scratch/out.txt" 2>&1; then
  cat "$scratch/out.txt"
  fail "a matrix with a killed rank exited 0"
fi
q "SELECT cell, status, COALESCE(error, '') FROM run ORDER BY cell"
expect "SELECT group_concat(status, ' ') FROM (SELECT status FROM run ORDER BY cell)" \
  "failed ok failed ok ok" "statuses"
q "SELECT error FROM run WHERE cell = 0" | grep -q "^rank 1 was killed by signal 9 (SIGKILL)" \
  || fail "the killed rank is not named"
q "SELECT error FROM run WHERE cell = 2" | grep -q "^rank 1 is stopped (SIGSTOP or a debugger)" \
  || fail "the rank stopped past the timeout is not named"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

echo "== every fault is an event of its run, from the faulted rank"
expect "SELECT group_concat(r.cell || ':' || e.rank || ':' || e.detail, '|') FROM event e JOIN run r ON r.id = e.run_id
        WHERE e.kind = 'fault' ORDER BY r.cell" \
  "0:1:kill rank 1 at step 3|1:1:stop rank 1 at step 3 for 1 s|2:1:stop rank 1 at step 3 for 8 s|3:1:slow rank 1 by 40 ms per step from step 3" \
  "fault events"
expect "SELECT group_concat(r.cell || '=' || trim(p.value, '\"'), ' ') FROM run_param p JOIN run r ON r.id = p.run_id
        WHERE p.key = 'fault.kind' ORDER BY r.cell" \
  "0=kill 1=stop 2=stop 3=slow 4=none" "fault settings stored with each run"

expect "SELECT group_concat(r.cell, ' ') FROM event e JOIN run r ON r.id = e.run_id
        WHERE e.kind = 'failure' AND e.rank IS NULL AND e.detail = r.error ORDER BY r.cell" "0 2" \
  "the coordinator's failure event, as the run's error"
expect "SELECT COUNT(*) FROM event f JOIN event d ON d.run_id = f.run_id AND d.kind = 'failure'
        WHERE f.kind = 'fault' AND d.at_s >= f.at_s AND d.at_s - f.at_s < 30" 2 "time from fault to failure"

echo "== kill: the killed rank's steps end before the fault"
expect "SELECT MAX(s.step) FROM step s JOIN run r ON r.id = s.run_id WHERE r.cell = 0 AND s.rank = 1" 2 \
  "the killed rank ran past step 2"

echo "== stop 1 s: rank 0 waits in step 3 for the stopped rank"
expect "SELECT s.seconds >= 0.9 AND s.comm_exposed_s >= 0.9 FROM step s JOIN run r ON r.id = s.run_id
        WHERE r.cell = 1 AND s.rank = 0 AND s.step = 3" 1 "rank 0's step 3 did not wait for the stop"
expect "SELECT MAX(s.seconds) < 0.5 FROM step s JOIN run r ON r.id = s.run_id
        WHERE r.cell = 1 AND s.step <> 3" 1 "a step other than 3 took the stop"

echo "== slow 40 ms: rank 1 computes 40 ms longer from step 3; rank 0 waits for it"
expect "SELECT MIN(s.forward_s) >= 0.04 FROM step s JOIN run r ON r.id = s.run_id
        WHERE r.cell = 3 AND s.rank = 1 AND s.step >= 3" 1 "the slow steps are not 40 ms longer"
expect "SELECT MAX(s.forward_s) < 0.04 FROM step s JOIN run r ON r.id = s.run_id
        WHERE r.cell = 3 AND s.rank = 1 AND s.step < 3" 1 "steps before the fault were slowed"
expect "SELECT AVG(s.comm_exposed_s) >= 0.03 FROM step s JOIN run r ON r.id = s.run_id
        WHERE r.cell = 3 AND s.rank = 0 AND s.step >= 3" 1 "rank 0 did not wait for the straggler"
expect "SELECT COUNT(*) FROM event e JOIN run r ON r.id = e.run_id WHERE r.cell = 4 AND e.kind = 'fault'" 0 \
  "a clean run has a fault event"

echo "== a fault on a rank the run does not have is refused at its line"
sed 's/^rank = 1$/rank = 2/' "$matrices/injected_faults.toml" > "$scratch/bad_rank.toml"
if "$dtbench" validate "$scratch/bad_rank.toml" > "$scratch/bad.txt" 2>&1; then fail "rank 2 of 2 accepted"; fi
grep -q "bad_rank.toml:25:.*\[fault\] rank = 2 is not a rank of cell 0 (world_size 2)" "$scratch/bad.txt" \
  || { cat "$scratch/bad.txt"; fail "no clear error for the rank"; }
sed 's/^slow_ms = 40$/slow = 40/' "$matrices/injected_faults.toml" > "$scratch/bad_key.toml"
if "$dtbench" validate "$scratch/bad_key.toml" > "$scratch/bad.txt" 2>&1; then fail "unknown key accepted"; fi
grep -q "bad_key.toml:27:.*unknown key 'slow' in \[fault\]" "$scratch/bad.txt" \
  || { cat "$scratch/bad.txt"; fail "no clear error for the key"; }
echo "== MPI: rank 1 stopped past the timeout while rank 0 runs the collective in its own wait"
# bucketed over MPI: one bucket, issued and waited at once, so rank 0's wait
# runs MPI_Allreduce itself and cannot return; the worker's wait guard ends
# rank 0 at the timeout (3 s) plus its grace (2 s), naming what is stuck,
# and mpirun takes the job down. Nothing hangs or is left running.
sed -e 's/^backend = "gloo"/backend = "mpi"/' -e 's/^strategy = "allreduce"/strategy = "bucketed"/' \
    -e 's/^kind = .*/kind = "stop"/' -e 's/^seconds = .*/seconds = 60.0/' -e '/^\[matrix\]/,/^zip/d' \
    "$matrices/injected_faults.toml" > "$scratch/mpi_stop.toml"
db=$scratch/mpi_stop.db
start=$(date +%s)
if ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$dtbench" run "$scratch/mpi_stop.toml" --db "$db" \
    > "$scratch/mpi_stop.txt" 2>&1; then
  cat "$scratch/mpi_stop.txt"
  fail "an MPI run with a rank stopped for 60 s passed"
fi
elapsed=$(( $(date +%s) - start ))
q "SELECT error FROM run"
q "SELECT error FROM run" | grep -q "rank 0: backend 'mpi' on rank 0: a wait for allreduce is still inside the backend [0-9]* ms after its 3000 ms timeout" \
  || { cat "$scratch/mpi_stop.txt"; fail "the stuck wait is not named"; }
(( elapsed < 40 )) || fail "the stuck wait took $elapsed s to end the run"
[[ $(workers_left) == 0 ]] || fail "MPI workers left behind"
[[ $(pgrep -f "mpirun.*$scratch" | wc -l) == 0 ]] || fail "mpirun left behind"
db=$scratch/f.db

echo "== fault keys from the command line: --set and --only"
"$dtbench" validate "$scratch/bad_rank.toml" --set fault.rank=0 --only fault.kind=stop > "$scratch/set.txt" 2>&1 \
  || { cat "$scratch/set.txt"; fail "--set fault.rank did not replace the bad rank"; }
grep -q "2 cells x 1 repeat = 2 runs" "$scratch/set.txt" || { cat "$scratch/set.txt"; fail "--only fault.kind"; }
echo "ok"
