#!/usr/bin/env bash
# Test accuracy after every epoch, dtbench next to PyTorch DDP, same model
# (LeNet), data (MNIST subset, Fashion-MNIST), batch, optimizer and epochs,
# world sizes 1 and 2, each the mean over seeds 1-3. The two sides draw
# different initial weights, dropout masks and shuffles (different random
# generators), so single runs differ by noise — several points in the first
# epoch — which the mean over seeds narrows.
#   bench/lenet_mnist/accuracy.sh            (from the repository root)
# Needs tools/fetch-datasets.sh's data and Debian's python3-torch ($PYTHON).
# About 12 minutes on 2 cores.
source "$(dirname "$0")/../common/bench_lib.sh"
require_torch
work=$(mktemp -d)
build/bin/dtbench run bench/lenet_mnist/accuracy.toml --db "$work/acc.db" >/dev/null 2>&1
echo "dataset        world  epoch  dtbench_test_acc  pytorch_test_acc  difference_points  (means over seeds 1-3)"
for set in "mnist 0.1307 0.3081" "fashion-mnist 0.2860 0.3530"; do
  read -r name mean std <<<"$set"
  for world in 1 2; do
    for seed in 1 2 3; do
      "$python" bench/lenet_mnist/pytorch_ddp.py "data/$name" "$world" 5 64 $((cores / world)) "$mean" "$std" "$seed" |
        sed -nE 's/^epoch=([0-9]+) test_accuracy=([0-9.]+)/\1 \2/p'
    done | awk '{ sum[$1] += $2; n[$1]++ } END { for (e in sum) printf "%d %.6f\n", e, sum[e] / n[e] }' |
      sort -n >"$work/torch"
    build/bin/dtbench query "$work/acc.db" "SELECT a.epoch, AVG(a.test_accuracy) FROM accuracy a
        JOIN run_param p ON p.run_id = a.run_id AND p.key = 'dataset.idx.path'
        WHERE a.world_size = $world AND p.value = '\"data/$name\"' GROUP BY a.epoch ORDER BY a.epoch" --format csv |
      tail -n +2 | tr -d '\r' | tr ',' ' ' >"$work/dtbench"
    join "$work/dtbench" "$work/torch" | awk -v name="$name" -v world="$world" \
      '{ printf "%-13s  %5d  %5d  %16.4f  %16.4f  %+17.2f\n", name, world, $1, $2, $3, 100 * ($2 - $3) }'
  done
done
