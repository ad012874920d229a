#!/usr/bin/env bash
# precision = fp32 / bf16 / fp16 end to end (matrices/mixed_precision.toml):
# the all-reduce moves half the bytes in bf16 and fp16 (fp16 adds the 4-byte
# overflow flag every step), learns what fp32 learns within the stated
# margin, and records fp16's loss scale per step. An overflow injected into
# one rank's gradients skips that step on every rank and, with hysteresis 1,
# halves the scale on every rank; a strategy that has not opted in to mixed
# precision refuses it by name, and the host refuses it to one built before
# the ABI had it.
#   mixed_precision_test.sh DTBENCH TEST_PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 plugins=$2 matrices=$3
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/p.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch
run() { "$dtbench" --plugin-path "$plugins" run "$matrices/mixed_precision.toml" "$@"; }

run --db "$db" > "$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "3 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
# run_param keeps values as TOML wrote them: "bf16", quoted.
precision="(SELECT TRIM(p.value, '\"') FROM run_param p WHERE p.run_id = s.run_id AND p.key = 'precision')"
"$dtbench" query "$db" "SELECT $precision AS precision, AVG(bytes_sent) AS bytes_per_step FROM step s GROUP BY 1"
"$dtbench" query "$db" "SELECT $precision AS precision, epoch, train_loss, test_accuracy FROM epoch s ORDER BY 1, 2"

echo "== bus bytes per step halved"
bytes() { q "SELECT DISTINCT bytes_sent FROM step s WHERE $precision = '$1'"; }
fp32=$(bytes fp32) bf16=$(bytes bf16) fp16=$(bytes fp16)
[[ $fp32 =~ ^[0-9]+$ && $bf16 =~ ^[0-9]+$ && $fp16 =~ ^[0-9]+$ ]] || fail "bytes per step vary within a run: $fp32 / $bf16 / $fp16"
((bf16 * 2 == fp32)) || fail "bf16 sent $bf16 bytes a step, fp32 $fp32: not half"
((fp16 == fp32 / 2 + 4)) || fail "fp16 sent $fp16 bytes a step: not half of fp32's $fp32 plus the 4-byte overflow flag"

echo "== bf16 and fp16 learn what fp32 learns (margin: 2 points of test accuracy)"
last="FROM epoch s WHERE epoch = 2 AND $precision"
expect "SELECT COUNT(*) FROM epoch a JOIN epoch b ON b.epoch = a.epoch AND b.run_id <> a.run_id
          WHERE a.epoch = 2 AND a.run_id = (SELECT s.run_id $last = 'fp32')
            AND ABS(b.test_accuracy - a.test_accuracy) <= 0.02 AND b.test_accuracy > 0.5" 2 \
  "a mixed-precision run lost more than 2 points of accuracy (or learned nothing)"
# The premise: the runs did differ (rounded parameters and gradients), they
# are not fp32 under another name.
expect "SELECT COUNT(DISTINCT train_loss) $last IN ('fp32', 'bf16')" 2 "bf16 trained exactly as fp32"

echo "== fp16's loss scale is recorded"
expect "SELECT steps, CAST(first_scale AS INTEGER) FROM loss_scaling" "50,65536" "loss_scaling for the fp16 run"
expect "SELECT COUNT(*) FROM step_metric m WHERE plugin = 'precision' AND
          (SELECT TRIM(value, '\"') FROM run_param p WHERE p.run_id = m.run_id AND p.key = 'precision') <> 'fp16'" 0 \
  "a loss scale recorded for a run without one"

echo "== an overflow on rank 1 skips step 3 on every rank"
db=$scratch/f.db
run --db "$db" --set precision=fp16 --set fault.kind=overflow --set fault.rank=1 --set fault.step=3 \
  --set hysteresis=1 > "$scratch/f.txt" 2>&1 || { cat "$scratch/f.txt"; fail "the overflow run exited with $?"; }
"$dtbench" query "$db" "SELECT rank, step, name, value FROM step_metric WHERE step BETWEEN 2 AND 5 ORDER BY rank, step, name"
expect "SELECT GROUP_CONCAT(rank || ':' || step, ' ') FROM step_metric WHERE name = 'skipped' AND value = 1" "0:3 1:3" \
  "the skipped steps"
expect "SELECT GROUP_CONCAT(rank || ':' || step || '=' || CAST(value AS INTEGER), ' ') FROM step_metric
          WHERE name = 'loss_scale' AND step IN (3, 4)" "0:3=65536 0:4=32768 1:3=65536 1:4=32768" \
  "the scale after the overflow (hysteresis 1: halved at once, on both ranks)"
expect "SELECT CAST(skipped_steps AS INTEGER), CAST(last_scale AS INTEGER) FROM loss_scaling" "1,32768" \
  "loss_scaling after the overflow"
expect "SELECT COUNT(*) FROM event WHERE kind = 'fault' AND detail LIKE '%inf in the gradients of rank 1 at step 3%'" 1 \
  "the fault's event"

echo "== what cannot run says so"
if run --db "$scratch/x.db" --set fault.kind=overflow > "$scratch/x.txt" 2>&1; then
  fail "an overflow fault in an fp32 run was accepted"
fi
grep -q 'kind = "overflow".*set precision = "fp16"' "$scratch/x.txt" || { cat "$scratch/x.txt"; fail "the fp32 overflow's message"; }
run --db "$scratch/b.db" --set strategy=bucketed --set precision=bf16 > "$scratch/b.txt" 2>&1 || true
grep -q "bucketed: parameter '.*' is bf16; this strategy trains f32 parameters only" "$scratch/b.txt" \
  || { cat "$scratch/b.txt"; fail "bucketed did not refuse bf16 by name"; }
# A strategy built before mixed precision existed (the ABI 1.2 test fixture)
# cannot know its tensors may be bf16: the host does not hand them to it.
run --db "$scratch/o.db" --set strategy=epoch_hooks_v12 --set precision=bf16 > "$scratch/o.txt" 2>&1 || true
grep -q "strategy 'epoch_hooks_v12' was built for ABI 1.2, before mixed precision (1.8)" "$scratch/o.txt" \
  || { cat "$scratch/o.txt"; fail "a pre-1.8 strategy was not refused mixed precision"; }
echo "PASS"
