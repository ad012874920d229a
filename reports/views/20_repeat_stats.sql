-- Spread over the repeats of each cell (successful runs only).
CREATE VIEW repeat_stats AS
WITH ranked AS (
  SELECT experiment_id, cell, samples_per_s, final_test_accuracy,
         ROW_NUMBER() OVER (PARTITION BY experiment_id, cell ORDER BY samples_per_s) AS rn,
         COUNT(*) OVER (PARTITION BY experiment_id, cell) AS n
  FROM run_summary
  WHERE status = 'ok' AND samples_per_s IS NOT NULL
)
SELECT s.experiment, s.experiment_id, s.cell, s.config_key, s.strategy, s.backend, s.model,
       s.world_size, s.global_batch_size,
       COUNT(*) AS repeats,
       (SELECT AVG(samples_per_s) FROM ranked k
         WHERE k.experiment_id = s.experiment_id AND k.cell = s.cell
           AND k.rn IN ((k.n + 1) / 2, (k.n + 2) / 2)) AS median_samples_per_s,
       MIN(s.samples_per_s) AS min_samples_per_s,
       MAX(s.samples_per_s) AS max_samples_per_s,
       AVG(s.final_test_accuracy) AS mean_test_accuracy,
       MIN(s.final_test_accuracy) AS min_test_accuracy,
       MAX(s.final_test_accuracy) AS max_test_accuracy
FROM run_summary s
WHERE s.status = 'ok' AND s.samples_per_s IS NOT NULL
GROUP BY s.experiment_id, s.cell;
