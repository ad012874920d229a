-- Report query: the headline figures per configuration and world size, with
-- the spread over repeats: samples/s (median, min, max), ms per step,
-- speed-up, efficiency, final test accuracy (mean, min, max), failed runs,
-- the noise flags (spread of the repeats, runs under competing load), and
-- bus_mb_per_step: the bus bytes one rank moves per training step (steady
-- epochs: run_figure's steady_bus_bytes / steady_steps), mean over the
-- successful repeats, in MB (1e6 bytes) — the figure a compression
-- strategy exists to cut; NULL where no traffic was recorded.
-- Measured cells come from scaling (one pass), each with its failed runs
-- and bytes read through the run_by_config index; cells that never
-- succeeded follow, from the runs alone.
SELECT s.experiment_id, s.config_key, s.model, s.world_size, s.repeats,
       (SELECT COUNT(*) FROM run r
        WHERE r.experiment_id = s.experiment_id AND r.config_key = s.config_key AND r.world_size = s.world_size
          AND r.status = 'failed') AS failed,
       s.samples_per_s AS median_samples_per_s, s.min_samples_per_s, s.max_samples_per_s,
       s.mean_ms_per_step AS ms_per_step, s.speedup, s.efficiency,
       s.mean_test_accuracy, s.min_test_accuracy, s.max_test_accuracy,
       s.spread, s.loaded_runs, s.noisy,
       (SELECT AVG(f.steady_bus_bytes / f.steady_steps) / 1e6 FROM run r JOIN run_figure f ON f.run_id = r.id
        WHERE r.experiment_id = s.experiment_id AND r.config_key = s.config_key AND r.world_size = s.world_size
          AND r.status = 'ok' AND f.steady_steps > 0) AS bus_mb_per_step
FROM scaling s
WHERE s.experiment_id IN ({experiments}) AND s.strategy != 'sweep'
UNION ALL
SELECT experiment_id, config_key, model, world_size, 0, SUM(status = 'failed'),
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL
FROM run
WHERE experiment_id IN ({experiments}) AND strategy != 'sweep'
GROUP BY experiment_id, config_key, world_size
HAVING SUM(status = 'ok' AND id IN (SELECT run_id FROM run_figure
                                     WHERE steady_samples / steady_seconds IS NOT NULL)) = 0
ORDER BY 1, 3, 2, 4;
