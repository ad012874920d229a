#!/usr/bin/env bash
# dtbench's Gloo backend against Gloo itself, in the same run: `dtbench comm
# --backend gloo` and raw_allreduce.cpp (gloo::allreduce called directly,
# built here against Debian's libgloo) alternate three times at 2 ranks,
# float sum, 4 KiB to 64 MiB by 4; per size the median time of each side,
# their bus bandwidths and the ratios. What dtbench adds is its backend
# thread (collectives run off the caller's thread so they overlap compute)
# and the host's wrapper.
#   bench/gloo_allreduce/compare.sh           (from the repository root)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
g++ -O2 -std=c++17 bench/gloo_allreduce/raw_allreduce.cpp -o "$scratch/raw_allreduce" -lgloo -pthread
for round in 1 2 3; do
  store=$scratch/store$round
  mkdir -p "$store"
  "$scratch/raw_allreduce" 1 2 "$store" 4096 67108864 4 5 20 >/dev/null &
  "$scratch/raw_allreduce" 0 2 "$store" 4096 67108864 4 5 20 | sed "s/^/$round /" >>"$scratch/raw.txt"
  wait
  build/bin/dtbench comm --backend gloo --ranks 2 --ops allreduce -d float -b 4K -e 64M -f 4 -w 5 -n 20 \
    --name "round$round" --db "$scratch/comm.db" >/dev/null 2>&1
done
build/bin/dtbench query "$scratch/comm.db" "SELECT replace(experiment, 'round', ''), bytes, time_us FROM collective_bandwidth WHERE op = 'allreduce'" \
  --format csv | tail -n +2 | tr -d '\r' >"$scratch/dtbench.txt"
python3 bench/common/size_ratios.py Gloo "$scratch/raw.txt" "$scratch/dtbench.txt"
