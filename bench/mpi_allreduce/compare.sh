#!/usr/bin/env bash
# dtbench's MPI backend against Open MPI's own blocking MPI_Allreduce, in
# the same run: `dtbench comm --backend mpi` and raw_allreduce.cpp (built
# here with mpicxx) alternate three times at 2 ranks, float sum, 4 KiB to
# 64 MiB by 4; per size the median time of each side, their bus bandwidths
# and the ratios. Targets (issue 14): busbw >= 0.9x MPI's from 64 KiB up,
# latency <= 2x MPI's at 4 KiB.
#   bench/mpi_allreduce/compare.sh            (from the repository root)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mpicxx -O2 -std=c++17 bench/mpi_allreduce/raw_allreduce.cpp -o "$scratch/raw_allreduce"
root_flag=()
[[ $(id -u) -eq 0 ]] && root_flag=(--allow-run-as-root)
for round in 1 2 3; do
  mpirun "${root_flag[@]}" --oversubscribe --bind-to none -np 2 "$scratch/raw_allreduce" 4096 67108864 4 5 20 \
    | sed "s/^/$round /" >>"$scratch/raw.txt"
  build/bin/dtbench comm --backend mpi --ranks 2 --ops allreduce -d float -b 4K -e 64M -f 4 -w 5 -n 20 \
    --name "round$round" --db "$scratch/comm.db" >/dev/null 2>&1
done
build/bin/dtbench query "$scratch/comm.db" "SELECT bytes, time_us FROM collective_bandwidth WHERE op = 'allreduce'" \
  --format csv | tail -n +2 | tr -d '\r' >"$scratch/dtbench.txt"
python3 - "$scratch/raw.txt" "$scratch/dtbench.txt" <<'PY'
import statistics, sys
raw, ours = {}, {}
for line in open(sys.argv[1]):
    _, size, us, _ = line.split()
    raw.setdefault(int(size), []).append(float(us))
for line in open(sys.argv[2]):
    size, us = line.strip().split(",")
    ours.setdefault(int(size), []).append(float(us))
factor = 2 * (2 - 1) / 2  # all-reduce bus factor at 2 ranks
print(f"{'bytes':>10} {'MPI_us':>10} {'dtbench_us':>11} {'MPI_busbw':>10} {'dtbench_busbw':>14} {'busbw_ratio':>12} {'time_ratio':>11}")
for size in sorted(raw):
    if size not in ours:
        continue
    r, o = statistics.median(raw[size]), statistics.median(ours[size])
    rb, ob = size / r / 1e3 * factor, size / o / 1e3 * factor
    print(f"{size:>10} {r:>10.1f} {o:>11.1f} {rb:>10.2f} {ob:>14.2f} {ob / rb:>12.2f} {o / r:>11.2f}")
PY
