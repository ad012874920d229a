#!/usr/bin/env bash
# The parameter server end to end (matrices/ps.toml): LeNet at 2 ranks, each
# serving half of the 21,840 parameters, rank 1 slowed 30 ms a step. Sync
# trains as the all-reduce does; async, allowed 2 steps of staleness, ends
# within 5 points of sync, with the staleness each step saw stored, never
# above its bound, and above 0 somewhere (rank 0 ran ahead). Each worker's
# pushes and pulls and each server's traffic match the formula: per step a
# worker sends its gradient of every shard it does not serve (Psi / S
# elements each, plus a 16-byte header), and a server receives one from each
# of the G - 1 other workers.
#   ps_test.sh DTBENCH PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 plugins=$2 matrices=$3
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/ps.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch

"$dtbench" --plugin-path "$plugins" run "$matrices/ps.toml" --db "$db" > "$scratch/out.txt" 2>&1 \
  || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "3 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
"$dtbench" query "$db" "SELECT label, ROUND(mean_test_accuracy, 4) AS accuracy FROM repeat_stats ORDER BY label"

echo "== accuracy"
expect "SELECT COUNT(*) FROM repeat_stats WHERE mean_test_accuracy > 0.9" 3 "a configuration did not learn"
expect "SELECT COUNT(*) FROM repeat_stats s JOIN repeat_stats a ON a.label = 'ps mode=async'
          WHERE s.label = 'ps mode=sync' AND ABS(a.mean_test_accuracy - s.mean_test_accuracy) <= 0.05" 1 \
  "async is not within 5 points of sync"

echo "== staleness"
staleness="SELECT m.rank, m.value FROM step_metric m JOIN run_summary f ON f.run_id = m.run_id
             WHERE m.name = 'ps.staleness' AND f.label = "
expect "SELECT COUNT(*), MAX(value) FROM ($staleness 'ps mode=sync')" "120,0" "sync: one staleness per step and rank, all 0"
expect "SELECT COUNT(*), MAX(value) <= 2, SUM(value) > 0 FROM ($staleness 'ps mode=async')" "120,1,1" \
  "async: one staleness per step and rank, within the bound, and some"

echo "== traffic against the formula"
expect "SELECT COUNT(*) FROM event WHERE kind = 'ps' AND detail LIKE '%21840 elements in 2 shards'" 4 \
  "every rank's strategy announces its shards"
perstep="SELECT m.run_id, m.rank, m.name, SUM(m.value) / COUNT(DISTINCT m.step) AS v FROM step_metric m
           JOIN run_summary f ON f.run_id = m.run_id WHERE f.label = 'ps mode=sync' GROUP BY m.run_id, m.rank, m.name"
expect "SELECT DISTINCT CAST(v AS INTEGER) FROM ($perstep) WHERE name IN ('ps.push_bytes', 'ps.pull_bytes',
          'ps.server_bytes_in', 'ps.server_bytes_out')" "43696" "bytes per step: (21840 / 2 + 4) x 4 each way"
expect "SELECT COUNT(*) FROM ($perstep) WHERE name = 'ps.server_ms' AND v > 0" 2 "the servers' work per step"
