#!/usr/bin/env bash
# The ratio targets of issue 34, all measured in one run on this machine and
# printed with their ranges (docs/benchmarks.md, "Ratios against the
# references"):
#   1. dtbench's MPI backend against raw MPI_Allreduce (bench/mpi_allreduce,
#      five paired rounds of its own): busbw >= 0.9x from 64 KiB, 4 KiB
#      latency <= 1.5x;
#   2. LeNet on MNIST at 2 ranks, batch 128 (lenet.toml) against PyTorch 1.13
#      DDP over Gloo (bench/lenet_mnist/pytorch_ddp.py): bucketed/gloo >=
#      1.5x DDP's samples/s, fusion >= 0.9x bucketed over Gloo and over MPI;
#   3. ResNet-18 at 2 ranks (resnet18.toml): fusion >= 0.95x bucketed over
#      Gloo and MPI, and its compute inflation (forward + backward against one
#      rank alone) within 10 % of bucketed's.
# Each round runs DDP, then the two matrices (every cell once): the ratios
# are taken within a round (paired), so a round the machine was slow for
# all cancels out; printed as the median over rounds and their range.
#   bench/ratios/compare.sh [ROUNDS]      (default 5; ~15 min here)
# Needs python3-torch (PyTorch's side), mpicxx/mpirun and data/mnist
# (tools/fetch-datasets.sh).
source "$(dirname "$0")/../common/bench_lib.sh"
require_torch
rounds=${1:-5}
[[ -f data/mnist/train-images-idx3-ubyte ]] || {
  echo "bench/ratios: no data/mnist; run tools/fetch-datasets.sh first" >&2
  exit 1
}
scratch=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$scratch"' EXIT

echo "== 1. MPI backend against MPI_Allreduce (2 ranks, float sum)"
bench/mpi_allreduce/compare.sh

for round in $(seq 1 "$rounds"); do
  echo "== round $round of $rounds" >&2
  "$python" bench/lenet_mnist/pytorch_ddp.py data/mnist 2 4 128 $((cores / 2)) | grep '^pytorch' |
    sed -E "s/.*samples_per_s=([0-9.]+).*/$round,\1/" >>"$scratch/ddp.csv"
  for matrix in lenet resnet18; do
    build/bin/dtbench run "bench/ratios/$matrix.toml" --db "$scratch/ratios.db" >"$scratch/out.txt" 2>&1 ||
      { cat "$scratch/out.txt"; exit 1; }
  done
done
build/bin/dtbench query "$scratch/ratios.db" \
  "SELECT DENSE_RANK() OVER (PARTITION BY s.experiment ORDER BY s.experiment_id) AS round, s.experiment,
          s.label, s.world_size, s.samples_per_s, b.forward_ms + b.backward_ms AS compute_ms
   FROM run_summary s JOIN step_breakdown b ON b.run_id = s.run_id WHERE s.status = 'ok'" \
  --format csv | tail -n +2 | tr -d '\r' >"$scratch/runs.csv"
build/bin/dtbench query "$scratch/ratios.db" \
  "SELECT DENSE_RANK() OVER (PARTITION BY experiment ORDER BY experiment_id) AS round, experiment, label,
          AVG(per_step) AS cycle_cpu_ms
   FROM plugin_metrics WHERE name = 'fusion.cycle_cpu_ms' GROUP BY run_id" \
  --format csv | tail -n +2 | tr -d '\r' >"$scratch/cycles.csv"
python3 bench/ratios/paired.py "$scratch/ddp.csv" "$scratch/runs.csv" "$scratch/cycles.csv"
