#!/usr/bin/env bash
# The numbers dtbench reports, checked end to end on real runs
# (matrices/exposure.toml): exposed communication includes every wait of the
# training thread, in whatever phase; the phases sum to the step; shares lie
# in [0, 1] and hidden is NULL at one rank; every step of every rank is
# stored with its loss and the plugins' metrics; labels tell configurations
# apart; speed-up is NULL without a smaller world size; a run under
# competing load and a cell whose repeats disagree are flagged.
#   numbers_test.sh DTBENCH TEST_PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 plugins=$2 matrices=$3
scratch=$(mktemp -d)
busy=()
cleanup() { for p in "${busy[@]+"${busy[@]}"}"; do kill "$p" 2>/dev/null || true; done; [[ -n ${KEEP:-} ]] || rm -rf "$scratch"; }
trap cleanup EXIT
db=$scratch/e.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch

"$dtbench" --plugin-path "$plugins" run "$matrices/exposure.toml" --db "$db" > "$scratch/out.txt" 2>&1 \
  || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "12 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
"$dtbench" query "$db" "SELECT label, world_size, ROUND(step_ms, 3) AS step_ms, ROUND(comm_exposed_ms, 3) AS exposed_ms,
                        ROUND(comm_total_ms, 3) AS total_ms, ROUND(comm_hidden_share, 3) AS hidden, ROUND(other_ms, 3) AS other_ms
                        FROM step_breakdown ORDER BY run_id"

echo "== exposed communication is every wait of the training thread"
# blocking communicates only in step(), with comm_wait or a comm_test poll
# loop: all of it is exposed, none hidden. Not to the last 10 %: the
# backend's busy clock stops a little after it signals completion, and a
# spinning poll loop on 2 cores stretches that tail; uncounted waits would
# leave exposed near 0.
expect "SELECT COUNT(*) FROM step_breakdown WHERE strategy = 'blocking' AND world_size = 2
          AND comm_hidden_share < 0.3 AND comm_exposed_ms >= 0.7 * comm_total_ms" 2 "blocking's communication not exposed"
expect "SELECT COUNT(*) FROM step s JOIN run r ON r.id = s.run_id WHERE r.strategy = 'blocking' AND r.world_size = 2
          AND s.optimizer_wait_s > 0 AND s.comm_exposed_s >= s.optimizer_wait_s" 160 "blocking's waits not taken from its step()"
# ZeRO-3 gathers parameters in forward (and backward): waits there on every rank.
expect "SELECT COUNT(*) FROM (SELECT s.run_id, s.rank FROM step s JOIN run r ON r.id = s.run_id
          WHERE r.label LIKE '%stage=3%' AND r.world_size = 2 GROUP BY s.run_id, s.rank
          HAVING SUM(s.forward_wait_s) > 0 AND SUM(s.backward_wait_s) > 0)" 4 "ZeRO-3's gathers not exposed"
# ZeRO-2 communicates nothing in forward; its all-gather after the update is a wait in step().
expect "SELECT SUM(s.forward_wait_s) = 0 AND SUM(s.optimizer_wait_s) > 0 FROM step s JOIN run r ON r.id = s.run_id
          WHERE r.label LIKE '%stage=2%' AND r.world_size = 2" 1 "ZeRO-2's waits misplaced"
# The baseline waits only in finish_backward.
expect "SELECT SUM(forward_wait_s + backward_wait_s + optimizer_wait_s) FROM step s JOIN run r ON r.id = s.run_id
          WHERE r.strategy = 'allreduce'" 0 "allreduce waits outside finish_backward"

echo "== the phases sum to the step; shares lie in [0, 1]; hidden is NULL at one rank"
expect "SELECT COUNT(*) FROM step WHERE data_s + forward_s + backward_s + comm_exposed_s + optimizer_s > seconds + 1e-6
          OR forward_s < 0 OR backward_s < 0 OR optimizer_s < 0" 0 "a step's phases exceed its time"
expect "SELECT COUNT(*) FROM step_breakdown WHERE other_ms < -0.001 OR comm_exposed_share NOT BETWEEN 0 AND 1
          OR comm_hidden_share < 0 OR comm_hidden_share > 1" 0 "a share or phase out of range"
expect "SELECT COUNT(*) FROM step_breakdown WHERE world_size = 1 AND comm_hidden_share IS NULL" 6 "hidden share at one rank"
expect "SELECT COUNT(*) FROM step_breakdown WHERE world_size = 2 AND comm_hidden_share IS NOT NULL" 6 "hidden share at two ranks"

echo "== every step of every rank, with its loss and the plugins' metrics"
expect "SELECT COUNT(*) FROM step WHERE loss IS NOT NULL AND samples = 32" 720 "not one row per step and rank"
expect "SELECT COUNT(*) FROM (SELECT run_id, rank FROM step GROUP BY run_id, rank
          HAVING COUNT(*) = 40 AND MIN(step) = 0 AND MAX(step) = 39)" 18 "steps missing"
expect "SELECT COUNT(*) FROM loss_per_step WHERE ranks = (SELECT world_size FROM run WHERE id = run_id)" 480 "loss_per_step"
# The mlp has 6 parameter tensors: blocking all-reduces each once per step, on each rank.
expect "SELECT COUNT(*), MIN(value), MAX(value) FROM step_metric WHERE name = 'blocking.allreduces'" "240,6,6" \
  "blocking's metric_add not stored per step"
expect "SELECT COUNT(*) FROM plugin_metrics WHERE name = 'zero.parameter_gathers' AND total > 0" 6 "ZeRO's metric"
expect "SELECT COUNT(*) FROM time_to_accuracy WHERE best_test_accuracy >= test_accuracy AND elapsed_s > 0" 24 \
  "time_to_accuracy"

echo "== identity: labels and speed-up"
expect "SELECT COUNT(DISTINCT label) FROM run" 6 "configurations share a label"
expect "SELECT label FROM run WHERE strategy = 'blocking' AND world_size = 2 ORDER BY cell" $'blocking wait=wait\nblocking wait=poll' \
  "labels of the blocking cells"
expect "SELECT COUNT(*) FROM run WHERE label = 'zero prefetch=false stage=3'" 2 "labels of the zero cells"
grep -q "zero prefetch=false stage=3" "$scratch/out.txt" || fail "run's summary without labels"
"$dtbench" runs "$db" | grep -q "zero prefetch=true stage=2" || fail "runs without labels"
expect "SELECT COUNT(*) FROM scaling WHERE world_size = 1 AND speedup IS NULL AND efficiency IS NULL" 6 \
  "speed-up at the reference world size"
expect "SELECT COUNT(*) FROM scaling WHERE world_size = 2 AND speedup > 0 AND efficiency > 0" 6 "speed-up at 2 ranks"
for view in run_summary repeat_stats scaling step_breakdown accuracy loss_per_step time_to_accuracy plugin_metrics \
            memory_vs_theory traffic_vs_theory collective_bandwidth collective_fit recovery_cost; do
  expect "SELECT COUNT(*) FROM pragma_table_info('$view') WHERE name IN ('experiment', 'label')" 2 \
    "$view lacks the experiment name or label"
done

echo "== noise: a run under competing load, a cell whose repeats disagree"
for _ in 1 2; do
  yes >/dev/null &
  busy+=($!)
done
"$dtbench" --plugin-path "$plugins" run "$matrices/busy.toml" --db "$scratch/busy.db" > "$scratch/busy.txt" 2>&1 \
  || { cat "$scratch/busy.txt"; fail "busy run failed"; }
for p in "${busy[@]}"; do kill "$p"; done
busy=()
db=$scratch/busy.db
expect "SELECT COUNT(*) FROM run_summary WHERE loaded = 1 AND competing_cpus > 0.25" 2 "competing load not detected"
# The two busy loops are named as the competition.
expect "SELECT COUNT(*) FROM run_summary WHERE competing_processes LIKE '%yes %'" 2 "competition not named"
expect "SELECT COUNT(*) FROM repeat_stats WHERE noisy = 1 AND loaded_runs = 2" 1 "loaded cell not flagged"
grep -q "NOISY" "$scratch/busy.txt" || fail "run's summary does not flag noisy cells"
"$dtbench" runs "$db" | grep -q "loaded(" || fail "runs does not flag loaded runs"
# Two quiet repeats, one 50 % slower: the cell's spread is flagged.
db=$scratch/e.db
sqlite3 "$db" "INSERT INTO run (experiment_id, cell, repeat, config_key, model, dataset, strategy, backend, world_size,
                 batch_size, global_batch_size, status, label, loaded)
               SELECT experiment_id, cell, repeat + 1, config_key, model, dataset, strategy, backend, world_size,
                 batch_size, global_batch_size, status, label, 0 FROM run WHERE cell = 11;
               INSERT INTO epoch (run_id, epoch, steps, samples, seconds)
               SELECT (SELECT MAX(id) FROM run), epoch, steps, samples, seconds * 1.5 FROM epoch
               WHERE run_id = (SELECT id FROM run WHERE cell = 11 AND repeat = 0);
               UPDATE run SET loaded = 0 WHERE cell = 11;"
expect "SELECT label, world_size, repeats, ROUND(spread, 2), noisy FROM repeat_stats WHERE cell = 11" \
  "allreduce,2,2,0.4,1" "spread not flagged"
expect "SELECT noisy FROM scaling WHERE world_size = 2 AND label = 'allreduce'" 1 "scaling does not carry the flag"
echo "numbers: ok"
