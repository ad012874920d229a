-- Speed-up and parallel efficiency against the smallest world size with
-- otherwise equal parameters (same experiment, same config_key), from the
-- median throughput over repeats (of the reference too, never one run):
--   S_G = throughput_G / throughput_ref   (= T_ref / T_G for the same work)
--   E_G = S_G x G_ref / G
-- Both are NULL at the reference world size itself, and where the
-- configuration has no smaller world size: there is nothing to compare.
-- noisy = 1 when this cell or its reference is (repeat_stats.noisy); the
-- cell's own repeat figures (min, max, spread, accuracy) come along, so a
-- query needs no second join to repeat_stats.
-- One pass over repeat_stats: the reference is the first row of each
-- configuration's window by world size.
CREATE VIEW scaling AS
WITH g AS (
  SELECT q.*,
         FIRST_VALUE(q.world_size) OVER w AS ref_world_size,
         FIRST_VALUE(q.median_samples_per_s) OVER w AS ref_samples_per_s,
         FIRST_VALUE(q.noisy) OVER w AS ref_noisy
  FROM repeat_stats q
  WINDOW w AS (PARTITION BY q.experiment_id, q.config_key ORDER BY q.world_size)
)
SELECT experiment, experiment_id, label, config_key, strategy, backend, model,
       world_size, global_batch_size, repeats,
       median_samples_per_s AS samples_per_s,
       ref_world_size, ref_samples_per_s,
       CASE WHEN world_size > ref_world_size THEN median_samples_per_s / ref_samples_per_s END AS speedup,
       CASE WHEN world_size > ref_world_size
            THEN median_samples_per_s / ref_samples_per_s * ref_world_size / world_size END AS efficiency,
       MAX(noisy, ref_noisy) AS noisy,
       min_samples_per_s, max_samples_per_s, mean_ms_per_step, spread, loaded_runs,
       mean_test_accuracy, min_test_accuracy, max_test_accuracy
FROM g;
