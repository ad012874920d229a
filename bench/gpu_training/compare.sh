#!/usr/bin/env bash
# dtbench's ResNet-50 training step on one GPU against PyTorch's on the same
# GPU, in the same run, alternating: batch 64, 224x224 synthetic images,
# fp32 with TF32 convolutions (PyTorch's default) and strict fp32, cuDNN
# benchmark mode on for both; then PyTorch's mixed precision for reference.
# Each line ends in "images/s N"; docs/gpu.md holds a run's numbers.
#   bench/gpu_training/compare.sh [ROUNDS]    (from the repository root, on a GPU machine)
set -uo pipefail
rounds=${1:-2}
bench=${GPU_TRAIN_BENCH:-build/bin/gpu_train_bench}
reference=bench/gpu_training/pytorch_reference.py
for round in $(seq "$rounds"); do
  for tf32 in 1 0; do
    echo "round $round tf32 $tf32 dtbench: $("$bench" --tf32 $tf32 2>&1 | tr '\n' ' ')"
    echo "round $round tf32 $tf32 pytorch: $(python3 "$reference" --tf32 $tf32 2>&1 | tail -n 1)"
  done
done
for amp in fp16 bf16; do
  echo "pytorch mixed precision: $(python3 "$reference" --amp $amp --channels-last 1 2>&1 | tail -n 1)"
done
