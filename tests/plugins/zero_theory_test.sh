#!/usr/bin/env bash
# ZeRO measured against the paper, end to end (real workers, 4 ranks, Adam):
# every rank's param + grad + optimizer bytes within 5% of the formulas for
# the replica and stages 1-3 (memory_vs_theory), and the bytes moved per step
# 2Ψ for the replica and stages 1-2, 3Ψ for stage 3, so stage 3 moves 1.5x
# the bytes of stage 2 (traffic_vs_theory).
#   zero_theory_test.sh DTBENCH MATRIX
set -euo pipefail
dtbench=$1 matrix=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$scratch/z.db" "$1" --format csv | tail -n +2 | tr -d '\r'; }
export TMPDIR=$scratch

"$dtbench" run "$matrix" --db "$scratch/z.db" > "$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt"; fail "run failed"; }
grep -q "4 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
"$dtbench" query "$scratch/z.db" "SELECT strategy, stage, rank, state_bytes, theory_state_bytes, ratio
                                   FROM memory_vs_theory ORDER BY stage, rank"
[[ $(q "SELECT COUNT(*) FROM memory_vs_theory") == 16 ]] || fail "one memory row per rank and run expected"
[[ $(q "SELECT COUNT(*) FROM memory_vs_theory WHERE ratio BETWEEN 0.95 AND 1.05") == 16 ]] \
  || fail "memory outside 5% of the formulas"
# Sharding really happened: stage 3 holds about a quarter of the replica's state.
[[ $(q "SELECT COUNT(*) FROM memory_vs_theory WHERE stage = 3 AND state_bytes * 3.5 < (
          SELECT MIN(state_bytes) FROM memory_vs_theory WHERE stage = 0)") == 4 ]] || fail "stage 3 did not shard"
"$dtbench" query "$scratch/z.db" "SELECT strategy, stage, step_bus_bytes, moved_psi, theory_psi FROM traffic_vs_theory"
[[ $(q "SELECT COUNT(*) FROM traffic_vs_theory WHERE ABS(moved_psi - theory_psi) <= 0.05 * theory_psi") == 4 ]] \
  || fail "bytes per step away from theory"
ratio=$(q "SELECT (SELECT step_bus_bytes FROM traffic_vs_theory WHERE stage = 3)
                / (SELECT step_bus_bytes FROM traffic_vs_theory WHERE stage = 2) AS ratio")
python3 -c "import sys; sys.exit(0 if abs(float('$ratio') - 1.5) < 0.05 else 1)" || fail "stage 3 / stage 2 bytes $ratio"
echo "zero theory: ok (stage 3 / stage 2 bytes per step: $ratio)"
