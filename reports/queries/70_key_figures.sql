-- Report query: the headline figures per configuration and world size, with
-- the spread over repeats: samples/s (median, min, max), ms per step,
-- speed-up, efficiency, final test accuracy (mean, min, max), failed runs,
-- and the noise flags (spread of the repeats, runs under competing load).
WITH runs AS (
  SELECT experiment_id, config_key, world_size,
         SUM(status = 'ok') AS ok, SUM(status = 'failed') AS failed,
         AVG(CASE WHEN status = 'ok' THEN ms_per_step END) AS ms_per_step
  FROM run_summary
  WHERE experiment_id IN ({experiments}) AND strategy != 'sweep'
  GROUP BY experiment_id, config_key, world_size
)
SELECT u.experiment_id, u.config_key, q.model, u.world_size, u.ok AS repeats, u.failed,
       q.median_samples_per_s, q.min_samples_per_s, q.max_samples_per_s, u.ms_per_step,
       s.speedup, s.efficiency,
       q.mean_test_accuracy, q.min_test_accuracy, q.max_test_accuracy,
       q.spread, q.loaded_runs, q.noisy
FROM runs u
LEFT JOIN repeat_stats q ON q.experiment_id = u.experiment_id AND q.config_key = u.config_key
                        AND q.world_size = u.world_size
LEFT JOIN scaling s ON s.experiment_id = u.experiment_id AND s.config_key = u.config_key
                   AND s.world_size = u.world_size
ORDER BY u.experiment_id, q.model, u.config_key, u.world_size;
