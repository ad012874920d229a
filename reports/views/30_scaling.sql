-- Speed-up and parallel efficiency against the smallest world size with
-- otherwise equal parameters (same experiment, same config_key), from the
-- median throughput over repeats:
--   S_G = throughput_G / throughput_ref   (= T_ref / T_G for the same work)
--   E_G = S_G x G_ref / G
CREATE VIEW scaling AS
WITH reference AS (
  SELECT experiment_id, config_key, MIN(world_size) AS ref_world_size
  FROM repeat_stats GROUP BY experiment_id, config_key
)
SELECT g.experiment, g.experiment_id, g.config_key, g.strategy, g.backend, g.model,
       g.world_size, g.global_batch_size, g.repeats,
       g.median_samples_per_s AS samples_per_s,
       ref.ref_world_size,
       b.median_samples_per_s AS ref_samples_per_s,
       g.median_samples_per_s / b.median_samples_per_s AS speedup,
       g.median_samples_per_s / b.median_samples_per_s * ref.ref_world_size / g.world_size AS efficiency
FROM repeat_stats g
JOIN reference ref ON ref.experiment_id = g.experiment_id AND ref.config_key = g.config_key
JOIN repeat_stats b ON b.experiment_id = g.experiment_id AND b.config_key = g.config_key
                   AND b.world_size = ref.ref_world_size;
