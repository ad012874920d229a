-- Report query: throughput against world size per configuration, with the
-- repeat spread and the ideal line (linear scaling from the smallest world
-- size measured), speed-up S and parallel efficiency E = S x G_ref / G.
SELECT s.experiment_id, s.config_key, s.model, s.world_size, s.repeats,
       s.samples_per_s, q.min_samples_per_s, q.max_samples_per_s,
       s.ref_world_size, s.ref_samples_per_s,
       s.ref_samples_per_s * s.world_size / s.ref_world_size AS ideal_samples_per_s,
       s.speedup, s.efficiency
FROM scaling s
JOIN repeat_stats q ON q.experiment_id = s.experiment_id AND q.config_key = s.config_key
                   AND q.world_size = s.world_size
WHERE s.experiment_id IN ({experiments})
ORDER BY s.experiment_id, s.model, s.config_key, s.world_size;
