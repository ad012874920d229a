#!/usr/bin/env bash
# bench/ratios/paired.py on rounds whose ratios are known: medians and
# ranges taken within rounds, "met" only where the median reaches the
# target, and a round missing a side left out rather than miscounted.
set -euo pipefail
paired=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# DDP: 100 samples/s every round. bucketed gloo: 140, 150, 160 (median 1.5,
# met); fusion gloo: 0.85 of bucketed each round (not met, median 0.85);
# fusion mpi at 0.9, 1.0 and nothing in round 3 (two rounds, median 0.95).
printf '1,100\n2,100\n3,100\n' >"$scratch/ddp.csv"
cat >"$scratch/runs.csv" <<'CSV'
1,ratios-lenet,bucketed gloo,2,140,5
2,ratios-lenet,bucketed gloo,2,150,5
3,ratios-lenet,bucketed gloo,2,160,5
1,ratios-lenet,fusion gloo,2,119,5
2,ratios-lenet,fusion gloo,2,127.5,5
3,ratios-lenet,fusion gloo,2,136,5
1,ratios-lenet,bucketed mpi,2,100,5
2,ratios-lenet,bucketed mpi,2,100,5
3,ratios-lenet,bucketed mpi,2,100,5
1,ratios-lenet,fusion mpi,2,90,5
2,ratios-lenet,fusion mpi,2,100,5
1,ratios-resnet18,bucketed gloo,1,10,100
1,ratios-resnet18,bucketed gloo,2,18,200
1,ratios-resnet18,fusion gloo,2,17.64,230
1,ratios-resnet18,bucketed mpi,2,18,200
1,ratios-resnet18,fusion mpi,2,18,210
CSV
printf '1,ratios-lenet,fusion gloo,1.5\n2,ratios-lenet,fusion gloo,0.5\n3,ratios-lenet,fusion gloo,1.0\n' >"$scratch/cycles.csv"
out=$(python3 "$paired" "$scratch/ddp.csv" "$scratch/runs.csv" "$scratch/cycles.csv")
echo "$out"
expect() {
  grep -qE -- "$1" <<<"$out" || { echo "FAIL: no line matching: $1" >&2; exit 1; }
}
expect 'bucketed gloo +/ DDP +1\.50 +\(1\.40-1\.60, 3 rounds\) +target >= 1\.5: met'
expect 'fusion / bucketed \(gloo\) +0\.85 +\(0\.85-0\.85, 3 rounds\) +target >= 0\.9: NOT met'
expect 'fusion / bucketed \(mpi\) +0\.95 +\(0\.90-1\.00, 2 rounds\) +target >= 0\.9: met'
# ResNet-18: 0.98 of bucketed over Gloo (met); inflation 2.30 against 2.00
# is 1.15 (not met) over Gloo, 2.10 against 2.00 is 1.05 (met) over MPI.
expect 'fusion / bucketed \(gloo\) +0\.98 .*target >= 0\.95: met'
expect "fusion's inflation / bucketed's \(gloo\) +1\.15 .*target <= 1\.1: NOT met"
expect "fusion's inflation / bucketed's \(mpi\) +1\.05 .*target <= 1\.1: met"
expect 'ratios-lenet +fusion gloo +1\.00 +\(0\.50-1\.50\)'
echo "ok"
