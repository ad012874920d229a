#!/usr/bin/env bash
# recovery = "restart" (torchrun's way; matrices/restart.toml): rank 1 of 2
# is killed before step 7 or before step 10 (epochs of 6 steps, checkpoints
# every 4 steps and at each epoch's end); the run restarts every worker from
# the checkpoint of step 6 (epoch 1's end: its record is not redone) or of
# step 8 (mid-epoch), and ends exactly as the same run without the fault
# (SGD with momentum and Adam: the checkpoint carries the strategy's
# optimizer state and Adam's step count); the recovery table and the
# recovery_cost view say what it cost, and the progress says it happened;
# the same under mpirun over MPI; max_restarts is honoured; a strategy that
# cannot save its state is refused before anything runs; nothing is left
# running or on disk; every SQL block of the docs page
# (docs/faults-and-recovery.md) runs on the results and returns rows.
#   restart_test.sh DTBENCH MATRIX_DIR DOCS_PAGE
set -euo pipefail
dtbench=$1 matrices=$2 page=$3
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/r.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch

echo "== a killed rank: every worker restarts from the last checkpoint, and the run ends well"
"$dtbench" run "$matrices/restart.toml" --db "$db" > "$scratch/out.txt" 2>&1 \
  || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "6 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
for step in 6 8; do
  grep -q ": restart 1 of 3: from the checkpoint of step $step, after rank 1 was killed by signal 9" \
    "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "the restart from step $step is not shown as it happens"; }
done
[[ $(grep -c ": ok after 1 restart (" "$scratch/out.txt") == 4 ]] || fail "the outcome does not say it restarted"
q "SELECT label, attempt, cause, resumed_step, lost_steps, time_to_detect_s, time_to_recover_s FROM recovery_cost"
# Cells: sgd none, kill@7, kill@10, then the same with adam.
expect "SELECT group_concat(r.cell || ':' || v.attempt || ':' || v.resumed_step || ':' || v.lost_steps, ' ')
        FROM recovery v JOIN run r ON r.id = v.run_id ORDER BY r.cell" "1:1:6:1 2:1:8:2 4:1:6:1 5:1:8:2" \
  "which checkpoint each restart resumed from, and the steps run twice"
expect "SELECT COUNT(*) FROM recovery_cost WHERE time_to_detect_s >= 0 AND time_to_recover_s > 0
        AND cause = 'rank 1 was killed by signal 9 (SIGKILL)'" 4 "detection and recovery times"
expect "SELECT group_concat(kind || ':' || COALESCE(rank, '-'), ' ') FROM
          (SELECT e.kind, e.rank FROM event e JOIN run r ON r.id = e.run_id
           WHERE r.cell = 1 AND e.kind IN ('fault', 'failure', 'restart', 'recovered') ORDER BY e.at_s)" \
  "fault:1 failure:- restart:- recovered:0" "the events of a restart, in time order"
expect "SELECT detail FROM event e JOIN run r ON r.id = e.run_id WHERE r.cell = 1 AND e.kind = 'restart'" \
  "restart 1 of 3: from the checkpoint of step 6" "the restart event"

echo "== the restarted runs end exactly as the clean one; a finished epoch's record is kept"
# (The test loss after the last epoch and the loss of the last step: a
# resumed epoch's train loss averages only the steps run after the restart.)
for optimizer in sgd adam; do
  expect "SELECT COUNT(*) || ' ' || COUNT(DISTINCT printf('%.9g', e.test_loss))
          FROM epoch e JOIN run r ON r.id = e.run_id
          JOIN run_param p ON p.run_id = r.id AND p.key = 'optimizer' WHERE e.epoch = 2 AND p.value = '\"$optimizer\"'" \
    "3 1" "$optimizer: a restarted run's test loss differs from the clean run's"
  expect "SELECT COUNT(*) || ' ' || COUNT(DISTINCT printf('%.9g', s.loss)) FROM step s JOIN run r ON r.id = s.run_id
          JOIN run_param p ON p.run_id = r.id AND p.key = 'optimizer' WHERE s.step = 11 AND s.rank = 0 AND p.value = '\"$optimizer\"'" \
    "3 1" "$optimizer: a restarted run's last step differs from the clean run's"
done
# kill@7 resumes at epoch 2's start: both records whole; kill@10 resumes at
# epoch 2's step 2: that epoch's record has the 4 steps run after the restart.
expect "SELECT group_concat(r.cell || ':' || e.epoch || '=' || e.steps, ' ') FROM epoch e JOIN run r ON r.id = e.run_id
        WHERE r.cell IN (1, 2) ORDER BY r.cell, e.epoch" "1:1=6 1:2=6 2:1=6 2:2=4" "the epochs' records"
expect "SELECT COUNT(*) FROM (SELECT s.run_id, s.rank, COUNT(*) AS n, COUNT(DISTINCT s.step) AS d, MAX(s.step) AS m
        FROM step s GROUP BY s.run_id, s.rank) WHERE n = 12 AND d = 12 AND m = 11" 12 \
  "every rank of every run has its 12 steps once"
[[ $(workers_left) == 0 ]] || fail "workers left behind"
[[ -z $(find "$scratch" -name '*.ckpt*') ]] || fail "checkpoints left on disk"

echo "== the SQL of $(basename "$page") runs on these results"
docs_sql_runs "$page" 3

echo "== the same under mpirun, over MPI: a new job from the checkpoint"
sed 's/^backend = "gloo"/backend = "mpi"/; s/^optimizer = .*$/optimizer = "sgd"/' "$matrices/restart.toml" \
  > "$scratch/mpi.toml"
db=$scratch/m.db
# Open MPI's own allocations are not ours to leak-check (as in run_test.sh).
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$dtbench" run "$scratch/mpi.toml" --db "$db" > "$scratch/m.txt" 2>&1 \
  || { cat "$scratch/m.txt"; fail "mpirun runs failed"; }
expect "SELECT group_concat(resumed_step, ' ') FROM (SELECT resumed_step FROM recovery ORDER BY run_id)" "6 8" \
  "mpirun: the checkpoints restarted from"
expect "SELECT COUNT(DISTINCT printf('%.9g', test_loss)) FROM epoch WHERE epoch = 2" 1 \
  "mpirun: a restarted run ends differently from the clean one"
[[ $(pgrep -f "mpirun.*$scratch" | wc -l) == 0 ]] || fail "mpirun left behind"

echo "== max_restarts = 0: the failure ends the run, and says so"
sed 's/^checkpoint_every = 4$/checkpoint_every = 4\nmax_restarts = 0/; s/^optimizer = .*$/optimizer = "sgd"/' \
  "$matrices/restart.toml" > "$scratch/no_restarts.toml"
db=$scratch/n.db
if "$dtbench" run "$scratch/no_restarts.toml" --db "$db" > "$scratch/n.txt" 2>&1; then fail "a killed run passed"; fi
expect "SELECT error FROM run WHERE cell = 1" \
  "failed after 0 restarts (max_restarts = 0): rank 1 was killed by signal 9 (SIGKILL)" "the bound"
expect "SELECT COUNT(*) FROM recovery" 0 "restarted past max_restarts"

echo "== a strategy that cannot save its state is refused before anything runs"
sed 's/^strategy = "bucketed"$/strategy = "zero"/' "$matrices/restart.toml" > "$scratch/zero.toml"
if "$dtbench" validate "$scratch/zero.toml" > "$scratch/z.txt" 2>&1; then fail "zero accepted"; fi
grep -q "zero.toml:25:.*recovery = \"restart\" needs a strategy that saves its state.*strategy 'zero'" "$scratch/z.txt" \
  || { cat "$scratch/z.txt"; fail "no clear error for zero"; }
echo "ok"
