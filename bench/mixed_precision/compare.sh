#!/usr/bin/env bash
# What bf16 costs and saves on this machine, as ratios measured in one run
# (matrix.toml: LeNet; resnet18.toml: ResNet-18; three interleaved seeds of
# each cell): median steady samples/s of bf16 over fp32 at 1 and 2 ranks,
# with the ranges, and bytes all-reduced per step (bf16's are half of
# fp32's). On a CPU without bf16 arithmetic the models compute in f32 on
# rounded values (docs/mixed-precision.md): the ratio is the price of the
# rounding, not a bf16 speed-up.
#   bench/mixed_precision/compare.sh            (from the repository root; about 4 min on 2 cores)
source "$(dirname "$0")/../common/bench_lib.sh"
run_matrix bench/mixed_precision/matrix.toml
build/bin/dtbench run bench/mixed_precision/resnet18.toml --db "$db" >"$scratch/resnet18.txt" 2>&1 \
  || { cat "$scratch/resnet18.txt"; exit 1; }
build/bin/dtbench query "$db" "
  WITH runs AS (
    SELECT s.model, TRIM(p.value, '\"') AS precision, s.world_size, s.samples_per_s, s.loaded,
           (SELECT AVG(bytes_sent) FROM step t WHERE t.run_id = s.run_id) AS bytes_per_step,
           ROW_NUMBER() OVER (PARTITION BY s.model, p.value, s.world_size ORDER BY s.samples_per_s) AS rn,
           COUNT(*) OVER (PARTITION BY s.model, p.value, s.world_size) AS n
    FROM run_summary s JOIN run_param p ON p.run_id = s.run_id AND p.key = 'precision'
    WHERE s.status = 'ok'
  ), medians AS (
    SELECT model, precision, world_size, COUNT(*) AS runs, SUM(loaded) AS loaded_runs,
           AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN samples_per_s END) AS samples_per_s,
           MIN(samples_per_s) AS min_samples_per_s, MAX(samples_per_s) AS max_samples_per_s,
           AVG(bytes_per_step) AS bytes_per_step
    FROM runs GROUP BY model, precision, world_size
  )
  SELECT m.model, m.precision, m.world_size, m.runs, m.loaded_runs, ROUND(m.samples_per_s, 1) AS median_samples_per_s,
         ROUND(m.min_samples_per_s, 1) AS min, ROUND(m.max_samples_per_s, 1) AS max,
         CAST(m.bytes_per_step AS INTEGER) AS bytes_per_step,
         ROUND(m.samples_per_s / f.samples_per_s, 3) AS ratio_to_fp32,
         ROUND(m.bytes_per_step / NULLIF(f.bytes_per_step, 0), 3) AS bytes_ratio
  FROM medians m JOIN medians f ON f.model = m.model AND f.precision = 'fp32' AND f.world_size = m.world_size
  ORDER BY m.model, m.world_size, m.precision DESC"
