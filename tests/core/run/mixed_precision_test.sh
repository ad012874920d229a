#!/usr/bin/env bash
# precision = fp32 / bf16 / fp16 end to end (matrices/mixed_precision.toml):
# allreduce, bucketed, fusion and ZeRO stages 1-3 move half the bytes in bf16
# and fp16 (fp16 adds the 4-byte overflow flag every step), learn what fp32
# learns within the stated margin, agree with each other in each precision
# (the equivalence suite's mixed-precision leg), ZeRO's ledger follows the
# paper's formulas, and fp16 records its loss scale per step. An overflow injected into
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
grep -q "18 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
# Each run's strategy (zero with its stage) and precision; run_param keeps
# values as TOML wrote them: "bf16", quoted.
param() { echo "(SELECT TRIM(p.value, '\"') FROM run_param p WHERE p.run_id = r.id AND p.key = '$1')"; }
runs="(SELECT r.id AS run_id, r.strategy || COALESCE('-' || $(param strategy.zero.stage), '') AS strategy,
              $(param precision) AS precision FROM run r)"
"$dtbench" query "$db" "SELECT x.strategy, x.precision, AVG(s.bytes_sent) AS bytes_per_step, e.train_loss,
                               e.test_accuracy
                        FROM $runs x JOIN step s ON s.run_id = x.run_id
                        JOIN epoch e ON e.run_id = x.run_id AND e.epoch = 2 GROUP BY x.run_id ORDER BY 1, 2"

echo "== bus bytes per step halved"
for strategy in allreduce bucketed fusion zero-1 zero-2 zero-3; do
  # From step 2 on: DDP's first step also broadcasts the order it rebuckets in.
  bytes() { q "SELECT DISTINCT s.bytes_sent FROM $runs x JOIN step s ON s.run_id = x.run_id
               WHERE x.strategy = '$strategy' AND x.precision = '$1' AND s.step >= 2"; }
  fp32=$(bytes fp32) bf16=$(bytes bf16) fp16=$(bytes fp16)
  if [[ $strategy == fusion ]]; then
    # Horovod's negotiation adds a few hundred bytes a step, cycle by cycle:
    # the mean, within 1 % of half.
    mean() { q "SELECT CAST(AVG(s.bytes_sent) AS INTEGER) FROM $runs x JOIN step s ON s.run_id = x.run_id
                WHERE x.strategy = 'fusion' AND x.precision = '$1'"; }
    fp32=$(mean fp32) bf16=$(mean bf16)
    ((200 * bf16 >= 99 * fp32 && 200 * bf16 <= 101 * fp32)) || fail "fusion: bf16 sent $bf16 bytes a step, fp32 $fp32"
    continue
  fi
  [[ $fp32 =~ ^[0-9]+$ && $bf16 =~ ^[0-9]+$ && $fp16 =~ ^[0-9]+$ ]] \
    || fail "$strategy: bytes per step vary within a run: $fp32 / $bf16 / $fp16"
  ((bf16 * 2 == fp32)) || fail "$strategy: bf16 sent $bf16 bytes a step, fp32 $fp32: not half"
  ((fp16 == fp32 / 2 + 4)) \
    || fail "$strategy: fp16 sent $fp16 bytes a step: not half of fp32's $fp32 plus the 4-byte overflow flag"
done

echo "== bf16 and fp16 learn what fp32 learns (margin: 2 points of test accuracy)"
final="$runs x JOIN epoch e ON e.run_id = x.run_id AND e.epoch = 2"
expect "SELECT COUNT(*) FROM $final JOIN (SELECT x.strategy, e.test_accuracy FROM $final WHERE x.precision = 'fp32') f
          ON f.strategy = x.strategy
          WHERE x.precision <> 'fp32' AND ABS(e.test_accuracy - f.test_accuracy) <= 0.02 AND e.test_accuracy > 0.5" 12 \
  "a mixed-precision run lost more than 2 points of accuracy against its strategy's fp32 run (or learned nothing)"
# The premise: the runs did differ (rounded parameters and gradients), they
# are not fp32 under another name.
expect "SELECT COUNT(DISTINCT e.train_loss) FROM $final WHERE x.strategy = 'allreduce' AND x.precision IN ('fp32', 'bf16')" 2 \
  "bf16 trained exactly as fp32"

echo "== the strategies agree in bf16 and in fp16 (tolerance: 1e-3 of the final train loss)"
expect "SELECT COUNT(*) FROM $final JOIN (SELECT x.precision, e.train_loss FROM $final WHERE x.strategy = 'allreduce') a
          ON a.precision = x.precision
          WHERE x.strategy <> 'allreduce' AND ABS(e.train_loss - a.train_loss) <= 1e-3 * a.train_loss" 15 \
  "a strategy ended away from the all-reduce in the same precision"

echo "== memory_vs_theory counts as the ZeRO paper does in mixed precision"
# Plain SGD keeps no state of its own: in bf16 and fp16 the f32 master copy
# is the one state float (K = 4 bytes), parameters and gradients 2 bytes
# each. Per parameter: a replica (2 + 2 + 4) = 8, stage 1 2 + 2 + 4/2 = 6,
# stage 2 2 + (2 + 4)/2 = 5, stage 3 (2 + 2 + 4)/2 = 4; in fp32 8, 8, 4 + 4/2 = 6
# and (4 + 4)/2 = 4.
expect "SELECT GROUP_CONCAT(row, ' ') FROM (SELECT DISTINCT precision || ':' || strategy || stage || '=' || element_bytes
          || '/' || state_floats || '/' || printf('%.2f', theory_state_bytes * 1.0 / param_elements) AS row
          FROM memory_vs_theory ORDER BY 1)" \
  "$(for p in bf16 fp16; do printf '%s:allreduce0=2.0/1/8.00 %s:bucketed0=2.0/1/8.00 %s:fusion0=2.0/1/8.00 %s:zero1=2.0/1/6.00 %s:zero2=2.0/1/5.00 %s:zero3=2.0/1/4.00 ' $p $p $p $p $p $p; done
     )fp32:allreduce0=4.0/0/8.00 fp32:bucketed0=4.0/0/8.00 fp32:fusion0=4.0/0/8.00 fp32:zero1=4.0/0/8.00 fp32:zero2=4.0/0/6.00 fp32:zero3=4.0/0/4.00" \
  "the formulas per precision and stage"
expect "SELECT COUNT(*) FROM memory_vs_theory WHERE stage < 3 AND ratio BETWEEN 1 AND 1.01" 30 \
  "a strategy's ledger away from the formulas (beyond padding)"
# Stage 3 keeps its persistent units (layers under param_persistence_threshold)
# whole, above the formula by their parameters' bytes: 2 each in mixed
# precision, so half fp32's excess (the formula itself is 4 bytes a parameter
# in both).
expect "SELECT COUNT(*) FROM memory_vs_theory m JOIN memory_vs_theory f ON f.rank = m.rank AND f.stage = 3
          AND f.precision = 'fp32' WHERE m.stage = 3 AND m.precision <> 'fp32' AND f.ratio BETWEEN 1.01 AND 1.2
          AND ABS((f.ratio - 1) - 2 * (m.ratio - 1)) < 1e-6" 4 \
  "ZeRO-3's ledger in mixed precision: beyond the formula by other than its persistent units' 2-byte parameters"

echo "== the gradient profile counts the bytes the strategies move"
# (What dtbench project schedules: in bf16 and fp16 each gradient's bytes
# are 2 per element, and they add up to the parameters' 2 bytes each.)
expect "SELECT COUNT(*) FROM (SELECT g.run_id, g.rank, SUM(g.bytes) AS bytes FROM gradient_ready g GROUP BY 1, 2) g
          JOIN memory m ON m.run_id = g.run_id AND m.rank = g.rank JOIN $runs x ON x.run_id = g.run_id
          WHERE g.bytes = m.param_elements * (CASE x.precision WHEN 'fp32' THEN 4 ELSE 2 END)" 36 \
  "a run's gradient profile does not add up to its parameters in its precision"

echo "== fp16's loss scale is recorded"
expect "SELECT COUNT(*), MIN(steps), MAX(steps), CAST(MIN(first_scale) AS INTEGER) FROM loss_scaling" "6,50,50,65536" \
  "loss_scaling for the fp16 runs"
expect "SELECT COUNT(*) FROM step_metric m JOIN $runs x ON x.run_id = m.run_id
          WHERE m.plugin = 'precision' AND x.precision <> 'fp16'" 0 "a loss scale recorded for a run without one"

echo "== an overflow on rank 1 skips step 3 on every rank"
db=$scratch/f.db
run --db "$db" --set strategy=allreduce --set precision=fp16 --set fault.kind=overflow --set fault.rank=1 --set fault.step=3 \
  --set hysteresis=1 > "$scratch/f.txt" 2>&1 || { cat "$scratch/f.txt"; fail "the overflow run exited with $?"; }
"$dtbench" query "$db" "SELECT rank, step, name, value FROM step_metric WHERE step BETWEEN 2 AND 5 ORDER BY rank, step, name"
expect "SELECT GROUP_CONCAT(rank || ':' || step, ' ') FROM step_metric WHERE name = 'skipped' AND value = 1" "0:3 1:3" \
  "the skipped steps"
expect "SELECT GROUP_CONCAT(rank || ':' || step || '=' || CAST(value AS INTEGER), ' ') FROM step_metric
          WHERE name = 'loss_scale' AND step IN (3, 4)" "0:3=65536 0:4=32768 1:3=65536 1:4=32768" \
  "the scale after the overflow (hysteresis 1: halved at once, on both ranks)"
expect "SELECT CAST(skipped_steps AS INTEGER), CAST(last_scale AS INTEGER) FROM loss_scaling" "1,32768" \
  "loss_scaling after the overflow"
expect "SELECT GROUP_CONCAT(step || '=' || CAST(loss_scale AS INTEGER) || '/' || skipped, ' ') FROM step_numerics
          WHERE step BETWEEN 2 AND 4" "2=65536/0 3=65536/1 4=32768/0" "step_numerics around the overflow"
expect "SELECT COUNT(*) FROM event WHERE kind = 'fault' AND detail LIKE '%inf in the gradients of rank 1 at step 3%'" 1 \
  "the fault's event"

echo "== a restart resumes the loss scale where the checkpoint left it"
# 2^24 overflows these gradients: the first steps are skipped, halving the
# scale each time (hysteresis 1). Rank 1 is killed before step 25; the run
# restarts from step 20's checkpoint and must end exactly as the clean run:
# with the scale back at 2^24 it would skip steps the clean run applied.
db=$scratch/r.db
run --db "$db" --set strategy=allreduce --set precision=fp16 --set initial_scale_power=24 --set hysteresis=1 \
  --set recovery=restart --set checkpoint_every=10 --set 'fault.kind=["none", "kill"]' --set fault.rank=1 \
  --set fault.step=25 > "$scratch/r.txt" 2>&1 || { cat "$scratch/r.txt"; fail "the restart runs exited with $?"; }
grep -q ": ok after 1 restart (" "$scratch/r.txt" || { cat "$scratch/r.txt"; fail "the killed run did not restart"; }
"$dtbench" query "$db" "SELECT run_id, skipped_steps, first_scale, last_scale, min_scale FROM loss_scaling"
expect "SELECT COUNT(*) FROM loss_scaling WHERE skipped_steps >= 3 AND first_scale = 16777216 AND last_scale < 16777216" 2 \
  "the premise: both runs skipped their first steps until the scale fit fp16"
# (The test loss after the last epoch and the last step's loss: a resumed
# epoch's train loss averages only the steps run after the restart.)
expect "SELECT COUNT(*) || ' ' || COUNT(DISTINCT printf('%.9g', test_loss)) FROM epoch WHERE epoch = 2" "2 1" \
  "the restarted fp16 run's test loss differs from the clean run's"
expect "SELECT COUNT(*) || ' ' || COUNT(DISTINCT printf('%.9g', loss)) FROM step WHERE step = 49 AND rank = 0" "2 1" \
  "the restarted fp16 run's last step differs from the clean run's"
expect "SELECT COUNT(*) FROM step_metric WHERE name = 'loss_scale' AND step >= 20 AND value = 16777216" 0 \
  "a step after the restart scaled by the initial 2^24"

echo "== gradient clipping measures the same global norm in every precision and strategy"
# The norm is of the unscaled gradients (fp16's are 2^16 times larger as
# rounded), summed from ZeRO's slices over the ranks, and every step's is
# above 0.5 here (about 0.6 to 0.8), so every step is clipped.
db=$scratch/c.db
run --db "$db" --set 'strategy=["allreduce", "zero"]' --set strategy.zero.stage=3 --set gradient_clipping=0.5 \
  --set epochs=1 --set max_steps_per_epoch=10 > "$scratch/c.txt" 2>&1 || { cat "$scratch/c.txt"; fail "the clipped runs exited with $?"; }
"$dtbench" query "$db" "SELECT label, max_norm, steps, clipped_steps, first_norm, last_norm FROM gradient_clipping"
expect "SELECT COUNT(*) FROM gradient_clipping WHERE max_norm = 0.5 AND steps = 10 AND clipped_steps = 10" 6 \
  "a clipped run did not clip each of its 10 steps"
expect "SELECT COUNT(*) FROM gradient_clipping g JOIN gradient_clipping f ON f.label = 'allreduce precision=fp32'
          WHERE ABS(g.first_norm - f.first_norm) <= 1e-3 * f.first_norm AND f.first_norm BETWEEN 0.5 AND 2" 6 \
  "a precision's or a strategy's first-step norm is not fp32 allreduce's (within 1e-3)"
# Clipped, each step's gradients have the norm clipped to (max / (norm + 1e-6) of it).
expect "SELECT COUNT(*) FROM step_numerics WHERE clip_factor < 1 AND ABS(grad_norm * clip_factor - 0.5) < 1e-5" 60 \
  "a clipped step's gradients do not have the norm 0.5"

echo "== gradient accumulation in fp16: two micro-batches a step, summed in f32"
db=$scratch/a.db
run --db "$db" --set 'strategy=["allreduce", "bucketed", "fusion"]' --set precision=fp16 --set accumulation_steps=2 \
  --set batch_size=16 --set epochs=1 > "$scratch/a.txt" 2>&1 || { cat "$scratch/a.txt"; fail "the accumulating runs exited with $?"; }
expect "SELECT COUNT(*) FROM epoch WHERE test_accuracy > 0.5" 3 "an accumulating fp16 run learned nothing"
expect "SELECT COUNT(*) FROM (SELECT MIN(train_loss) AS low, MAX(train_loss) AS high FROM epoch)
          WHERE high - low <= 1e-3 * low" 1 "the accumulating strategies ended apart (they sum the same micro-batches)"

echo "== what cannot run says so"
if run --db "$scratch/x.db" --set precision=fp32 --set fault.kind=overflow > "$scratch/x.txt" 2>&1; then
  fail "an overflow fault in an fp32 run was accepted"
fi
grep -q 'kind = "overflow".*tests fp16.s loss scaling; this cell.s precision is "fp32": set precision = "fp16"' "$scratch/x.txt" \
  || { cat "$scratch/x.txt"; fail "the fp32 overflow's message"; }
run --db "$scratch/za.db" --set strategy=zero --set precision=bf16 --set accumulation_steps=2 > "$scratch/za.txt" 2>&1 || true
grep -q "ZeRO's gradient accumulation in mixed precision is not built yet" "$scratch/za.txt" \
  || { cat "$scratch/za.txt"; fail "ZeRO with accumulation in bf16 was not refused by name"; }
if run --db "$scratch/y.db" --set precision=bf16 --set fault.kind=overflow > "$scratch/y.txt" 2>&1; then
  fail "an overflow fault in a bf16 run (which scales no loss, and so skips nothing) was accepted"
fi
run --db "$scratch/b.db" --set strategy=bucketed --set strategy.bucketed.comm_hook=fp16 --set precision=bf16 \
  > "$scratch/b.txt" 2>&1 || true
grep -q 'bucketed: comm_hook = "fp16" compresses f32 buckets, and this run.s gradients are bf16 already' "$scratch/b.txt" \
  || { cat "$scratch/b.txt"; fail "bucketed's fp16 hook did not refuse bf16 gradients by name"; }
run --db "$scratch/t.db" --set strategy=topk --set precision=bf16 > "$scratch/t.txt" 2>&1 || true
grep -q "topk: parameter '.*' is bf16; this strategy trains f32 parameters only" "$scratch/t.txt" \
  || { cat "$scratch/t.txt"; fail "a strategy that did not opt in (topk) did not refuse bf16 by name"; }
# A strategy built before mixed precision existed (the ABI 1.2 test fixture)
# cannot know its tensors may be bf16: the host does not hand them to it.
run --db "$scratch/o.db" --set strategy=epoch_hooks_v12 --set precision=bf16 > "$scratch/o.txt" 2>&1 || true
grep -q "strategy 'epoch_hooks_v12' was built for ABI 1.2, before mixed precision (1.8)" "$scratch/o.txt" \
  || { cat "$scratch/o.txt"; fail "a pre-1.8 strategy was not refused mixed precision"; }
echo "PASS"
