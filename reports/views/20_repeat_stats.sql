-- Spread over the repeats of each cell (successful runs only).
--   spread = (max - min) / median of samples/s; NULL with one repeat
--   noisy  = 1 when the spread is above 10 % or a repeat ran under
--            competing load (run.loaded): compare such cells with care, or
--            run them again with more repeats on a quieter machine.
-- Ranked on narrow rows, then joined back to one run of the cell for what
-- describes it: the cost grows with the runs, never runs x cells.
CREATE VIEW repeat_stats AS
WITH ranked AS (
  SELECT r.id AS run_id, r.experiment_id, r.cell, f.steady_samples / f.steady_seconds AS samples_per_s,
         1000.0 * f.steady_seconds / f.steady_steps AS ms_per_step, f.final_test_accuracy AS accuracy, r.loaded,
         ROW_NUMBER() OVER w AS rn,
         COUNT(*) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n
  FROM run r
  JOIN run_figure f ON f.run_id = r.id
  WHERE r.status = 'ok' AND f.steady_samples / f.steady_seconds IS NOT NULL
  WINDOW w AS (PARTITION BY r.experiment_id, r.cell ORDER BY f.steady_samples / f.steady_seconds)
), cells AS (
  SELECT experiment_id, cell, MIN(run_id) AS first_run, COUNT(*) AS repeats,
         AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN samples_per_s END) AS median_samples_per_s,
         MIN(samples_per_s) AS min_samples_per_s,
         MAX(samples_per_s) AS max_samples_per_s,
         AVG(ms_per_step) AS mean_ms_per_step,
         AVG(accuracy) AS mean_test_accuracy,
         MIN(accuracy) AS min_test_accuracy,
         MAX(accuracy) AS max_test_accuracy,
         COALESCE(SUM(loaded), 0) AS loaded_runs
  FROM ranked
  GROUP BY experiment_id, cell
)
SELECT x.name AS experiment, c.experiment_id, c.cell, COALESCE(r.label, r.strategy) AS label, r.config_key,
       r.strategy, r.backend, r.model, r.world_size, r.global_batch_size, c.repeats,
       c.median_samples_per_s, c.min_samples_per_s, c.max_samples_per_s, c.mean_ms_per_step,
       c.mean_test_accuracy, c.min_test_accuracy, c.max_test_accuracy, c.loaded_runs,
       CASE WHEN c.repeats > 1 THEN (c.max_samples_per_s - c.min_samples_per_s) / c.median_samples_per_s END
         AS spread,
       CASE WHEN c.loaded_runs > 0
              OR (c.repeats > 1 AND (c.max_samples_per_s - c.min_samples_per_s) / c.median_samples_per_s > 0.10)
            THEN 1 ELSE 0 END AS noisy
FROM cells c
JOIN run r ON r.id = c.first_run
JOIN experiment x ON x.id = c.experiment_id;
