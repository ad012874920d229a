#!/usr/bin/env bash
# Fusion's autotune against a grid over the same two knobs (issue 38): the
# tuned run's samples/s once tuning has ended, against the best grid cell's
# over its steady epochs — the same rank's step records, the same measure.
# Target: within 10 % of the grid's best.
#   bench/fusion_autotune/compare.sh [lenet|resnet18]
#     lenet (default): Fashion-MNIST, Horovod's defaults, ~5 min here;
#     needs data/fashion-mnist (tools/fetch-datasets.sh)
#     resnet18: synthetic data, shortened tuning (resnet18.toml), ~10 min here
source "$(dirname "$0")/../common/bench_lib.sh"
model=${1:-lenet}
case $model in
  lenet)
    [[ -f data/fashion-mnist/train-images-idx3-ubyte ]] || {
      echo "bench/fusion_autotune: no data/fashion-mnist; run tools/fetch-datasets.sh first" >&2
      exit 1
    }
    tuning_steps=1200 ;;  # Horovod's defaults: (3 warm-up + 21 scored points) x 5 windows x 10 steps
  resnet18) tuning_steps=50 ;;  # (1 warm-up + 9 scored points) x 5 windows x 1 step
  *) echo "bench/fusion_autotune: lenet or resnet18, not '$model'" >&2; exit 2 ;;
esac
run_matrix "bench/fusion_autotune/$model.toml"
build/bin/dtbench query "$db" "
  WITH rate AS (
    SELECT r.id, r.label, p.value AS autotune,
           SUM(s.samples) * r.world_size / SUM(s.seconds) AS samples_per_s
    FROM run r
    JOIN run_param p ON p.run_id = r.id AND p.key = 'strategy.fusion.autotune'
    JOIN step s ON s.run_id = r.id AND s.rank = 0
    WHERE r.status = 'ok' AND (CASE WHEN p.value = 'true' THEN s.step >= $tuning_steps ELSE s.epoch >= 2 END)
    GROUP BY r.id)
  SELECT label, ROUND(samples_per_s) AS samples_per_s,
         ROUND(samples_per_s / (SELECT MAX(samples_per_s) FROM rate WHERE autotune = 'false'), 3) AS of_grid_best
  FROM rate ORDER BY samples_per_s DESC"
echo
build/bin/dtbench query "$db" "SELECT detail FROM event WHERE detail LIKE 'autotune%chose%'"
