#!/usr/bin/env bash
# The strategy's epoch hooks (ABI 1.3) in real runs (matrices/epoch_hooks.toml):
# before_evaluation and end_epoch are called once per epoch on every rank,
# before_evaluation after the epoch's last step and end_epoch after the
# evaluation (the epoch_hooks strategy fails the run on any other order, and
# all-reduces in each hook, so every rank must be there); a strategy built
# for ABI 1.2 runs without them; a failing hook fails the run, named with the
# strategy and the hook.
#   epoch_hooks_test.sh DTBENCH TEST_PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 plugins=$2 matrices=$3
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { "$dtbench" query "$db" "$1" --format csv | tail -n +2 | tr -d '\r'; }
expect() {  # expect SQL VALUE MESSAGE
  local got
  got=$(q "$1")
  [[ $got == "$2" ]] || fail "$3 (got '$got', expected '$2')"
}
export TMPDIR=$scratch

echo "== once per epoch and rank, in order; none for an ABI 1.2 strategy"
db=$scratch/h.db
"$dtbench" --plugin-path "$plugins" run "$matrices/epoch_hooks.toml" --db "$db" > "$scratch/out.txt" 2>&1 \
  || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "4 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
q "SELECT r.strategy, r.world_size, e.rank, e.detail FROM event e JOIN run r ON r.id = e.run_id
   WHERE e.kind = 'epoch_hooks' ORDER BY e.run_id, e.rank, e.id"
# 3 epochs x (1 + 2) ranks x 2 hooks, all from epoch_hooks.
expect "SELECT r.strategy, COUNT(*) FROM event e JOIN run r ON r.id = e.run_id WHERE e.kind = 'epoch_hooks'
          GROUP BY r.strategy" "epoch_hooks,18" "not one call of each hook per epoch and rank"
# Each rank, each epoch: before_evaluation after all 4 steps, then end_epoch
# after the evaluation's forward passes.
for world in 1 2; do
  for ((rank = 0; rank < world; ++rank)); do
    got=$(q "SELECT e.detail FROM event e JOIN run r ON r.id = e.run_id
             WHERE e.kind = 'epoch_hooks' AND r.strategy = 'epoch_hooks' AND r.world_size = $world AND e.rank = $rank
             ORDER BY e.id" | sed 's/evaluation_layers=[1-9][0-9]*/evaluation_layers=N/')
    want=$(for epoch in 0 1 2; do
             echo "before_evaluation epoch=$epoch steps=4"
             echo "end_epoch epoch=$epoch evaluation_layers=N"
           done)
    [[ $got == "$want" ]] || fail "world $world rank $rank: hooks out of order:"$'\n'"$got"
  done
done
expect "SELECT COUNT(*) FROM epoch WHERE test_accuracy IS NOT NULL" 12 "evaluation missing"

echo "== a failing hook fails its run, named"
db=$scratch/f.db
if "$dtbench" --plugin-path "$plugins" run "$matrices/epoch_hooks_fail.toml" --db "$db" > "$scratch/fail.txt" 2>&1; then
  cat "$scratch/fail.txt"
  fail "a run whose hook failed exited 0"
fi
errors=$(q "SELECT cell || ': ' || status || ': ' || COALESCE(error, '') FROM run ORDER BY cell")
echo "$errors"
grep -q "^0: failed: rank [01]: strategy 'epoch_hooks' (.*): before_evaluation failed (internal error): epoch_hooks: injected failure in before_evaluation$" \
  <<<"$errors" || fail "before_evaluation's failure not reported against the strategy"
grep -q "^1: failed: rank [01]: strategy 'epoch_hooks' (.*): end_epoch failed (internal error): epoch_hooks: injected failure in end_epoch$" \
  <<<"$errors" || fail "end_epoch's failure not reported against the strategy"
echo "epoch_hooks: ok"
