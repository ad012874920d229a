#!/usr/bin/env bash
# dtbench vs PyTorch DistributedDataParallel on the same workload: ResNet-18
# (CIFAR stem) on 3x32x32 samples, batch 32 per rank, 2 epochs of 24 steps,
# world sizes 1 and 2 on this machine's cores, Gloo over loopback. Prints
# steady-epoch samples/s of both (dtbench: median of 3 repeats; PyTorch:
# median of 3 runs) and their ratio, measured in the same run.
#   bench/resnet18_cifar/compare.sh          (from the repository root)
# Needs Debian's python3-torch for the PyTorch side ($PYTHON: the Python
# that has it; Debian's /usr/bin/python3 by default). About 9 minutes on 2 cores.
source "$(dirname "$0")/../common/bench_lib.sh"
require_torch
run_matrix bench/resnet18_cifar/matrix.toml
echo "world  strategy   dtbench_samples_per_s  pytorch_ddp_samples_per_s  ratio"
for world in 1 2; do
  torch_rate=$(for _ in 1 2 3; do
    "$python" bench/resnet18_cifar/pytorch_ddp.py "$world" 2 24 32 $((cores / world)) |
      sed -E 's/.*samples_per_s=([0-9.]+).*/\1/'
  done | sort -g | sed -n 2p)
  build/bin/dtbench query "$db" "SELECT strategy, median_samples_per_s FROM repeat_stats WHERE world_size = $world
      ORDER BY strategy" --format csv | tail -n +2 | tr -d '\r' | while IFS=, read -r strategy rate; do
    printf '%5d  %-9s  %21.1f  %25.1f  %5.2f\n' "$world" "$strategy" "$rate" "$torch_rate" \
      "$(python3 -c "print($rate / $torch_rate)")"
  done
done
