#!/usr/bin/env bash
# bf16 learns what fp32 learns on the image models (matrices/bf16_accuracy.toml):
# ResNet-18 (batch norm, residual sums, 11 M parameters rounded every step)
# and LeNet, one rank each, end within 2 points of fp32's test accuracy, and
# both well above chance, so the comparison is between two models that
# learned. The margin: a 256-sample test split moves 0.4 points a sample,
# and bf16 keeps 8 bits of mantissa (measured: ResNet-18 0.992 / 0.996,
# LeNet 1.0 / 1.0, 2026-11-27).
# An accuracy test, skipped under the sanitizers: run.mixed_precision runs
# the same code there, and ResNet-18 there takes minutes.
#   bf16_accuracy_test.sh DTBENCH MATRIX_DIR SANITIZED
set -euo pipefail
dtbench=$1 matrices=$2 sanitized=$3
if [[ $sanitized == ON ]]; then
  echo "skipped: an accuracy test (run.mixed_precision covers the code under the sanitizers)"
  exit 77
fi
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT
db=$scratch/a.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch

"$dtbench" run "$matrices/bf16_accuracy.toml" --db "$db" > "$scratch/resnet.txt" 2>&1 \
  || { cat "$scratch/resnet.txt"; fail "the ResNet-18 runs exited with $?"; }
"$dtbench" run "$matrices/bf16_accuracy.toml" --db "$db" --set model=lenet --set 'dataset.synthetic.shape=[1, 28, 28]' \
  --set dataset.synthetic.classes=10 --set dataset.synthetic.separation=1.0 --set max_steps_per_epoch=30 --set epochs=3 \
  > "$scratch/lenet.txt" 2>&1 || { cat "$scratch/lenet.txt"; fail "the LeNet runs exited with $?"; }
final="SELECT r.model, TRIM(p.value, '\"') AS precision, e.test_accuracy, e.train_loss
       FROM run r JOIN run_param p ON p.run_id = r.id AND p.key = 'precision'
       JOIN epoch e ON e.run_id = r.id AND e.epoch = (SELECT MAX(epoch) FROM epoch WHERE run_id = r.id)"
"$dtbench" query "$db" "$final ORDER BY 1, 2"

expect "SELECT COUNT(*) FROM ($final) f WHERE f.precision = 'fp32' AND f.test_accuracy >= 0.9" 2 \
  "the premise: fp32 learned the task (test accuracy 0.9 or more) on both models"
expect "SELECT COUNT(*) FROM ($final) b JOIN ($final) f ON f.model = b.model AND f.precision = 'fp32'
          WHERE b.precision = 'bf16' AND ABS(b.test_accuracy - f.test_accuracy) <= 0.02" 2 \
  "bf16 ended more than 2 points of test accuracy away from fp32"
expect "SELECT COUNT(*) FROM ($final) b JOIN ($final) f ON f.model = b.model AND f.precision = 'fp32'
          WHERE b.precision = 'bf16' AND b.train_loss <> f.train_loss" 2 \
  "the premise: bf16 trained otherwise than fp32 (rounded parameters and gradients)"
echo "PASS"
