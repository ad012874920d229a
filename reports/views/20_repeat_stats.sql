-- Spread over the repeats of each cell (successful runs only).
--   spread = (max - min) / median of samples/s; NULL with one repeat
--   noisy  = 1 when the spread is above 10 % or a repeat ran under
--            competing load (run.loaded): compare such cells with care, or
--            run them again with more repeats on a quieter machine.
CREATE VIEW repeat_stats AS
WITH ranked AS (
  SELECT s.*,
         ROW_NUMBER() OVER (PARTITION BY experiment_id, cell ORDER BY samples_per_s) AS rn,
         COUNT(*) OVER (PARTITION BY experiment_id, cell) AS n
  FROM run_summary s
  WHERE s.status = 'ok' AND s.samples_per_s IS NOT NULL
), cells AS (
  SELECT experiment, experiment_id, cell, label, config_key, strategy, backend, model,
         world_size, global_batch_size,
         COUNT(*) AS repeats,
         AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN samples_per_s END) AS median_samples_per_s,
         MIN(samples_per_s) AS min_samples_per_s,
         MAX(samples_per_s) AS max_samples_per_s,
         AVG(final_test_accuracy) AS mean_test_accuracy,
         MIN(final_test_accuracy) AS min_test_accuracy,
         MAX(final_test_accuracy) AS max_test_accuracy,
         COALESCE(SUM(loaded), 0) AS loaded_runs
  FROM ranked
  GROUP BY experiment_id, cell
)
SELECT c.*,
       CASE WHEN repeats > 1 THEN (max_samples_per_s - min_samples_per_s) / median_samples_per_s END AS spread,
       CASE WHEN loaded_runs > 0
              OR (repeats > 1 AND (max_samples_per_s - min_samples_per_s) / median_samples_per_s > 0.10)
            THEN 1 ELSE 0 END AS noisy
FROM cells c;
