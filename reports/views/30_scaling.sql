-- Speed-up and parallel efficiency against the smallest world size with
-- otherwise equal parameters (same experiment, same config_key), from the
-- median throughput over repeats (of the reference too, never one run):
--   S_G = throughput_G / throughput_ref   (= T_ref / T_G for the same work)
--   E_G = S_G x G_ref / G
-- Both are NULL at the reference world size itself, and where the
-- configuration has no smaller world size: there is nothing to compare.
-- noisy = 1 when this cell or its reference is (repeat_stats.noisy).
CREATE VIEW scaling AS
WITH reference AS (
  SELECT experiment_id, config_key, MIN(world_size) AS ref_world_size
  FROM repeat_stats GROUP BY experiment_id, config_key
)
SELECT g.experiment, g.experiment_id, g.label, g.config_key, g.strategy, g.backend, g.model,
       g.world_size, g.global_batch_size, g.repeats,
       g.median_samples_per_s AS samples_per_s,
       ref.ref_world_size,
       b.median_samples_per_s AS ref_samples_per_s,
       CASE WHEN g.world_size > ref.ref_world_size
            THEN g.median_samples_per_s / b.median_samples_per_s END AS speedup,
       CASE WHEN g.world_size > ref.ref_world_size
            THEN g.median_samples_per_s / b.median_samples_per_s * ref.ref_world_size / g.world_size END
         AS efficiency,
       MAX(g.noisy, b.noisy) AS noisy
FROM repeat_stats g
JOIN reference ref ON ref.experiment_id = g.experiment_id AND ref.config_key = g.config_key
JOIN repeat_stats b ON b.experiment_id = g.experiment_id AND b.config_key = g.config_key
                   AND b.world_size = ref.ref_world_size;
