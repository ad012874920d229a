#!/usr/bin/env bash
# dtbench's NCCL backend against NCCL called directly, in the same run, on
# one GPU: `dtbench comm --backend nccl --ranks 1` and raw_nccl.cu (built
# here with nvcc) alternate three times, float, 4 KiB to 1 GiB by 4; per size
# the median time of each side and the ratio. At one rank an in-place
# all-reduce moves nothing, so its row is the launch path alone (the
# host-side cost dtbench adds per collective: its request, the ordering
# events); the out-of-place all-gather is a device copy of S bytes.
#   bench/nccl_allreduce/compare.sh    (from the repository root, on a GPU machine)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
"$nvcc" -O2 -std=c++17 bench/nccl_allreduce/raw_nccl.cu -lnccl -o "$scratch/raw_nccl"
for op in allreduce allgather; do
  for round in 1 2 3; do
    "$scratch/raw_nccl" "$op" 4096 1073741824 4 5 20 | sed "s/^/$round /" >>"$scratch/raw_$op.txt"
    build/bin/dtbench comm --backend nccl --ranks 1 --ops "$op" -d float -b 4K -e 1G -f 4 -w 5 -n 20 -c 0 \
      --name "$op$round" --db "$scratch/comm.db" >/dev/null 2>&1
  done
  build/bin/dtbench query "$scratch/comm.db" "SELECT replace(experiment, '$op', ''), bytes, time_us FROM collective_bandwidth WHERE op = '$op'" \
    --format csv | tail -n +2 | tr -d '\r' >"$scratch/dtbench_$op.txt"
  echo "# $op, 1 rank (the busbw columns are S / time here: one rank has no bus)"
  python3 bench/common/size_ratios.py NCCL "$scratch/raw_$op.txt" "$scratch/dtbench_$op.txt"
done
