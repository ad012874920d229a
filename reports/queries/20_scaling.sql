-- Report query: throughput against world size per configuration, with the
-- repeat spread and the ideal line (linear scaling from the smallest world
-- size measured), speed-up S and parallel efficiency E = S x G_ref / G.
SELECT s.experiment_id, s.config_key, s.model, s.world_size, s.repeats,
       s.samples_per_s, s.min_samples_per_s, s.max_samples_per_s,
       s.ref_world_size, s.ref_samples_per_s,
       s.ref_samples_per_s * s.world_size / s.ref_world_size AS ideal_samples_per_s,
       s.speedup, s.efficiency
FROM scaling s
WHERE s.experiment_id IN ({experiments})
ORDER BY s.experiment_id, s.model, s.config_key, s.world_size;
