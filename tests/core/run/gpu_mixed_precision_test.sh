#!/usr/bin/env bash
# Mixed precision on GPU tensors end to end (matrices/gpu_mixed_precision.toml),
# where a GPU is usable; skipped (77) elsewhere, after checking that `dtbench
# run` refuses the matrix for the missing GPU alone (not for its precision)
# and `dtbench validate` only warns. On a GPU: every run succeeds; bf16 and
# fp16 move half of fp32's bytes a step (fp16 plus its 4-byte overflow
# flag); each learns, and its first epoch stays near its strategy's fp32
# run; fp16 records its loss scale; one rank over NCCL in fp16 skips the
# step an overflow was injected into, and halves its scale.
# Written 2026-12-01, not yet run on a GPU.
#   gpu_mixed_precision_test.sh DTBENCH PLUGIN_DIR MATRIX_DIR
set -euo pipefail
dtbench=$1 plugins=$2 matrices=$3
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/gpu.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch
matrix=$matrices/gpu_mixed_precision.toml
run() { "$dtbench" --plugin-path "$plugins" run "$matrix" "$@"; }

if no_gpu_here; then
  "$dtbench" --plugin-path "$plugins" validate "$matrix" > "$scratch/validate.txt" 2>&1 \
    || { cat "$scratch/validate.txt"; fail "validate refused mixed precision on a GPU"; }
  grep -q "warning: device = \"cuda\" (cell 0): no GPU is usable here" "$scratch/validate.txt" \
    || { cat "$scratch/validate.txt"; fail "validate did not warn of the missing GPU"; }
  if run --db "$db" > "$scratch/run.txt" 2>&1; then fail "run accepted a GPU matrix without a GPU"; fi
  grep -q "error: device = \"cuda\" (cell 0): no GPU is usable here" "$scratch/run.txt" \
    || { cat "$scratch/run.txt"; fail "run did not say why it refused"; }
  if grep -q "error: precision" "$scratch/run.txt"; then
    cat "$scratch/run.txt"
    fail "run refused mixed precision on a GPU"
  fi
  echo "SKIP: no GPU is usable here (run refused the matrix for the GPU alone, as it must)"
  exit 77
fi

run --db "$db" > "$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt"; fail "run exited with $?"; }
grep -q "12 ok, 0 failed" "$scratch/out.txt" || { cat "$scratch/out.txt"; fail "not every run succeeded"; }
param() { echo "(SELECT TRIM(p.value, '\"') FROM run_param p WHERE p.run_id = r.id AND p.key = '$1')"; }
runs="(SELECT r.id AS run_id, r.strategy AS strategy, $(param precision) AS precision FROM run r)"
"$dtbench" query "$db" "SELECT x.strategy, x.precision, e.epoch, ROUND(e.train_loss, 4) AS loss,
                               ROUND(e.test_accuracy, 3) AS acc FROM $runs x JOIN epoch e ON e.run_id = x.run_id
                        ORDER BY 1, 2, 3"
"$dtbench" query "$db" "SELECT x.strategy, x.precision, ROUND(b.step_ms, 1) AS step_ms, ROUND(b.forward_ms, 1) AS fwd,
                               ROUND(b.backward_ms, 1) AS bwd, ROUND(b.comm_exposed_ms, 1) AS exposed,
                               ROUND(b.optimizer_ms, 1) AS opt, m.gpu_used_bytes >> 20 AS gpu_mib
                        FROM $runs x JOIN step_breakdown b ON b.run_id = x.run_id
                        JOIN memory m ON m.run_id = x.run_id AND m.rank = 0 ORDER BY 1, 2"

echo "== bus bytes per step halved"
# Steps the loss scaler skipped are left out: ZeRO gathers no parameters
# after a step that updated none (ResNet-18's first gradients overflow
# fp16 at DeepSpeed's first scale, 2^16).
applied="NOT EXISTS (SELECT 1 FROM step_metric m WHERE m.run_id = s.run_id AND m.step = s.step
                      AND m.name = 'skipped' AND m.value = 1)"
for strategy in allreduce bucketed zero; do
  # From step 2 on: DDP's first step also broadcasts the order it rebuckets in.
  bytes() { q "SELECT DISTINCT s.bytes_sent FROM $runs x JOIN step s ON s.run_id = x.run_id
               WHERE x.strategy = '$strategy' AND x.precision = '$1' AND s.step >= 2 AND $applied"; }
  fp32=$(bytes fp32) bf16=$(bytes bf16) fp16=$(bytes fp16)
  [[ $fp32 =~ ^[0-9]+$ && $bf16 =~ ^[0-9]+$ && $fp16 =~ ^[0-9]+$ ]] \
    || fail "$strategy: bytes per step vary within a run: $fp32 / $bf16 / $fp16"
  ((bf16 * 2 == fp32)) || fail "$strategy: bf16 sent $bf16 bytes a step, fp32 $fp32: not half"
  ((fp16 == fp32 / 2 + 4)) || fail "$strategy: fp16 sent $fp16 bytes a step: not half of $fp32 plus the flag"
done
# Fusion's negotiation adds bytes cycle by cycle: its mean, within 1 % of half.
mean() { q "SELECT CAST(AVG(s.bytes_sent) AS INTEGER) FROM $runs x JOIN step s ON s.run_id = x.run_id
            WHERE x.strategy = 'fusion' AND x.precision = '$1'"; }
fp32=$(mean fp32) bf16=$(mean bf16)
((200 * bf16 >= 99 * fp32 && 200 * bf16 <= 101 * fp32)) || fail "fusion: bf16 sent $bf16 bytes a step, fp32 $fp32"

echo "== bf16 and fp16 learn, their first epoch within 3 % of fp32's"
# Rounded parameters and gradients move the loss by a little from the first
# step on (the CPU's bf16 LeNet stays within 2 points of fp32's accuracy:
# docs/mixed-precision.md); new weights, or gradients lost in a conversion,
# would move it by far more.
first="$runs x JOIN epoch e ON e.run_id = x.run_id AND e.epoch = 1"
expect "SELECT COUNT(*) FROM $first JOIN (SELECT x.strategy, e.train_loss FROM $first WHERE x.precision = 'fp32') f
          ON f.strategy = x.strategy
          WHERE x.precision <> 'fp32' AND ABS(e.train_loss - f.train_loss) <= 0.03 * f.train_loss" 8 \
  "a mixed-precision run's first epoch strayed from its strategy's fp32 run"
expect "SELECT COUNT(*) FROM epoch a JOIN epoch b ON b.run_id = a.run_id AND b.epoch = 2
          WHERE a.epoch = 1 AND b.train_loss < a.train_loss" 12 "a run did not learn"
expect "SELECT COUNT(DISTINCT e.train_loss) FROM $first WHERE x.strategy = 'allreduce'" 3 \
  "the premise: the three precisions trained differently"
expect "SELECT COUNT(*) FROM loss_scaling" 4 "a loss scale per fp16 run"

echo "== an overflow on one rank over NCCL skips its step"
db=$scratch/f.db
# A first scale of 2^12, which these gradients do not overflow by themselves
# (2^16 does at two ranks: above), so the injected inf is the only one.
run --db "$db" --set strategy=allreduce --set backend=nccl --set world_size=1 --set precision=fp16 \
  --set initial_scale_power=12 --set fault.kind=overflow --set fault.step=4 > "$scratch/f.txt" 2>&1 \
  || { cat "$scratch/f.txt"; fail "the overflow run exited with $?"; }
expect "SELECT GROUP_CONCAT(step, ' ') FROM step_metric WHERE name = 'skipped' AND value = 1" "4" "the skipped steps"
expect "SELECT GROUP_CONCAT(step || '=' || CAST(value AS INTEGER), ' ') FROM step_metric
          WHERE name = 'loss_scale' AND step IN (4, 5)" "4=4096 5=2048" "the scale halved after the overflow"
echo "PASS"
