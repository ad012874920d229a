#!/usr/bin/env bash
# Runs topk.toml twice into one store and prints each run's verdict: the
# same decision both times, never naming topk (the configuration that learns
# less). Needs the build (build/) and MNIST (tools/fetch-datasets.sh).
#   bench/verdict/run_twice.sh [DB]   (default: a temporary store)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dtbench=$root/build/bin/dtbench
db=${1:-$(mktemp -d)/verdict.db}
for round in 1 2; do
  "$dtbench" --plugin-path "$root/build/tests/plugins" run "$root/bench/verdict/topk.toml" --db "$db" >/dev/null
done
"$dtbench" query "$db" "
  SELECT label, world_size, experiment_id AS round, ROUND(median_samples_per_s) AS samples_per_s,
         ROUND(spread, 3) AS spread, ROUND(mean_test_accuracy, 4) AS test_acc, loaded_runs
  FROM repeat_stats ORDER BY world_size, label, experiment_id"
"$dtbench" query "$db" "
  SELECT experiment_id AS round, world_size, decision, ROUND(accuracy_bar, 4) AS bar, missed, why
  FROM verdict ORDER BY world_size, experiment_id"
"$dtbench" query "$db" "
  SELECT label, world_size, ROUND(AVG(comm_exposed_ms), 3) AS exposed_ms, ROUND(AVG(optimizer_ms), 3) AS optimizer_ms
  FROM step_breakdown GROUP BY label, world_size ORDER BY world_size, label"
"$dtbench" query "$db" "
  SELECT label, ROUND(AVG(moved_psi), 4) AS moved_psi, ROUND(AVG(theory_psi), 4) AS theory_psi, theory_source
  FROM traffic_vs_theory GROUP BY label ORDER BY label"
echo "store: $db"
# The claim itself: each world size's decision the same in both rounds, and
# never naming topk (exit 1 otherwise).
differ=$("$dtbench" query "$db" "
  SELECT COUNT(*) FROM verdict a JOIN verdict b ON b.world_size = a.world_size AND b.experiment_id > a.experiment_id
  WHERE a.decision != b.decision" --format csv | tail -n 1)
named=$("$dtbench" query "$db" "SELECT COUNT(*) FROM verdict WHERE decision LIKE '%topk%' OR best = 'topk'" \
  --format csv | tail -n 1)
echo "world sizes whose decision differs between the rounds: $differ; decisions naming topk: $named"
[[ $differ == 0 && $named == 0 ]]
