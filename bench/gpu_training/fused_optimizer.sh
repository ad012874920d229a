#!/usr/bin/env bash
# The optimizer phase with fused_optimizer true against false, as ratios
# measured in one run (fused_optimizer.toml): per strategy and precision,
# the median over the second epoch's steps of optimizer_s (the
# strategy's step: its updates, and the host's wait for them on the GPU),
# fused over a kernel per parameter, and the whole step's. Needs a GPU: a
# machine without one refuses the cells in one line each.
#   bench/gpu_training/fused_optimizer.sh      (from the repository root; DTBENCH: another dtbench)
source "$(dirname "$0")/../common/bench_lib.sh"
run_matrix bench/gpu_training/fused_optimizer.toml
"$dtbench" query "$db" "
  WITH steps AS (
    SELECT TRIM(s.value, '\"') AS strategy, TRIM(p.value, '\"') AS precision,
           f.value AS fused, t.optimizer_s, t.seconds,
           ROW_NUMBER() OVER (PARTITION BY s.value, p.value, f.value ORDER BY t.optimizer_s) AS rn,
           COUNT(*) OVER (PARTITION BY s.value, p.value, f.value) AS n
    FROM step t JOIN run r ON r.id = t.run_id AND r.status = 'ok'
    JOIN run_param s ON s.run_id = t.run_id AND s.key = 'strategy'
    JOIN run_param p ON p.run_id = t.run_id AND p.key = 'precision'
    JOIN run_param f ON f.run_id = t.run_id AND f.key = 'fused_optimizer'
    WHERE t.epoch = 2
  ), medians AS (
    SELECT strategy, precision, fused, COUNT(*) AS steps,
           AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN optimizer_s END) AS optimizer_s,
           AVG(seconds) AS step_s
    FROM steps GROUP BY strategy, precision, fused
  )
  SELECT a.strategy, a.precision, a.steps,
         ROUND(a.optimizer_s * 1e3, 3) AS fused_optimizer_ms, ROUND(b.optimizer_s * 1e3, 3) AS per_parameter_ms,
         ROUND(a.optimizer_s / b.optimizer_s, 3) AS optimizer_ratio, ROUND(a.step_s / b.step_s, 3) AS step_ratio
  FROM medians a JOIN medians b ON b.strategy = a.strategy AND b.precision = a.precision
    AND a.fused = 'true' AND b.fused = 'false'
  ORDER BY a.strategy, a.precision"
