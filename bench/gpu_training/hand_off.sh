#!/usr/bin/env bash
# Forward and backward with the GPU's work handed over queued against
# waiting before every hook, as ratios measured in one run (hand_off.toml):
# per strategy, the medians over the second epoch's steps of forward_s,
# backward_s and the whole step, queued over waiting. Needs a GPU: a
# machine without one refuses the cells in one line each.
#   bench/gpu_training/hand_off.sh      (from the repository root; DTBENCH: another dtbench)
source "$(dirname "$0")/../common/bench_lib.sh"
run_matrix bench/gpu_training/hand_off.toml
"$dtbench" query "$db" "
  WITH steps AS (
    SELECT TRIM(s.value, '\"') AS strategy, w.value AS waits, t.forward_s, t.backward_s, t.seconds,
           ROW_NUMBER() OVER (PARTITION BY s.value, w.value ORDER BY t.forward_s) AS fn,
           ROW_NUMBER() OVER (PARTITION BY s.value, w.value ORDER BY t.backward_s) AS bn,
           ROW_NUMBER() OVER (PARTITION BY s.value, w.value ORDER BY t.seconds) AS sn,
           COUNT(*) OVER (PARTITION BY s.value, w.value) AS n
    FROM step t JOIN run r ON r.id = t.run_id AND r.status = 'ok'
    JOIN run_param s ON s.run_id = t.run_id AND s.key = 'strategy'
    JOIN run_param w ON w.run_id = t.run_id AND w.key = 'model.resnet.wait_for_gradients'
    WHERE t.epoch = 2
  ), medians AS (
    SELECT strategy, waits, COUNT(*) AS steps,
           AVG(CASE WHEN fn IN ((n + 1) / 2, (n + 2) / 2) THEN forward_s END) AS forward_s,
           AVG(CASE WHEN bn IN ((n + 1) / 2, (n + 2) / 2) THEN backward_s END) AS backward_s,
           AVG(CASE WHEN sn IN ((n + 1) / 2, (n + 2) / 2) THEN seconds END) AS step_s
    FROM steps GROUP BY strategy, waits
  )
  SELECT a.strategy, a.steps,
         ROUND(a.backward_s * 1e3, 2) AS queued_backward_ms, ROUND(b.backward_s * 1e3, 2) AS waiting_backward_ms,
         ROUND(a.backward_s / b.backward_s, 3) AS backward_ratio, ROUND(a.forward_s / b.forward_s, 3) AS forward_ratio,
         ROUND(a.step_s / b.step_s, 3) AS step_ratio
  FROM medians a JOIN medians b ON b.strategy = a.strategy AND a.waits = 'false' AND b.waits = 'true'
  ORDER BY a.strategy"
