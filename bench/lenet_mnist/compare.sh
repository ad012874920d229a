#!/usr/bin/env bash
# dtbench vs PyTorch DistributedDataParallel on the same workload: LeNet on
# MNIST (tools/fetch-datasets.sh), batch 64 per rank, 2 epochs, world sizes 1
# and 2 on this machine's cores, Gloo over loopback. Prints steady-epoch
# samples/s of both (dtbench: median of 3 repeats) and their ratio, measured
# in the same run.
#   bench/lenet_mnist/compare.sh            (from the repository root)
# Needs Debian's python3-torch for the PyTorch side ($PYTHON: the Python
# that has it; Debian's /usr/bin/python3 by default).
source "$(dirname "$0")/../common/bench_lib.sh"
require_torch
run_matrix bench/lenet_mnist/matrix.toml
echo "world  strategy   gloo_algorithm  dtbench_samples_per_s  pytorch_ddp_samples_per_s  ratio  dtbench_test_acc  pytorch_test_acc"
for world in 1 2; do
  read -r torch_rate torch_acc < <("$python" bench/lenet_mnist/pytorch_ddp.py data/mnist "$world" 2 64 $((cores / world)) | grep '^pytorch' |
    sed -E 's/.*samples_per_s=([0-9.]+) test_accuracy=([0-9.]+).*/\1 \2/')
  build/bin/dtbench query "$db" "SELECT r.strategy, p.value, r.median_samples_per_s, r.mean_test_accuracy FROM repeat_stats r
      JOIN run s ON s.experiment_id = r.experiment_id AND s.cell = r.cell AND s.repeat = 0
      JOIN run_param p ON p.run_id = s.id AND p.key = 'backend.gloo.algorithm' WHERE r.world_size = $world
      ORDER BY r.strategy, p.value" \
      --format csv | tail -n +2 | tr -d '\r' | while IFS=, read -r strategy algorithm rate acc; do
    printf '%5d  %-9s  %-14s  %21.0f  %25.0f  %5.2f  %16.4f  %16.4f\n' "$world" "$strategy" "${algorithm//\"/}" "$rate" "$torch_rate" \
      "$(python3 -c "print($rate / $torch_rate)")" "$acc" "$torch_acc"
  done
done
