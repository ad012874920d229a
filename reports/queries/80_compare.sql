-- Report query (dtbench report --compare A B): the cells two experiments
-- share (same configuration and world size), B against A, by the verdict's
-- noise rule. A change is "faster" or "slower" only when both sides have 2
-- or more repeats, no run on either side was under competing load
-- (run.loaded; repeat_stats.loaded_runs), and B's whole range of repeats
-- [min, max] of samples/s lies above A's (or below). Otherwise the verdict
-- says why not:
--   'inconclusive: loaded runs (A 3/3, B 2/3)'  runs under load on either
--                          side: loaded repeats of all repeats, per side
--   'noise unknown (one repeat)'  a single repeat on either side
--   'within noise'         the ranges overlap
-- loaded_a and loaded_b count each side's loaded repeats.
-- {experiment_a} and {experiment_b} are replaced by the two ids.
WITH cells AS (
  SELECT experiment_id, config_key, model, strategy, backend, world_size, repeats,
         median_samples_per_s AS thr, min_samples_per_s AS lo, max_samples_per_s AS hi,
         mean_test_accuracy AS acc, loaded_runs AS loaded
  FROM repeat_stats
  WHERE experiment_id IN ({experiment_a}, {experiment_b})
)
SELECT a.config_key, a.model, a.strategy, a.backend, a.world_size,
       a.repeats AS repeats_a, b.repeats AS repeats_b, a.loaded AS loaded_a, b.loaded AS loaded_b,
       a.thr AS a_samples_per_s, b.thr AS b_samples_per_s,
       b.thr / a.thr - 1 AS change,
       MAX((a.hi - a.lo) / a.thr, (b.hi - b.lo) / b.thr) AS noise,
       CASE
         WHEN a.loaded > 0 OR b.loaded > 0 THEN
           printf('inconclusive: loaded runs (A %d/%d, B %d/%d)', a.loaded, a.repeats, b.loaded, b.repeats)
         WHEN a.repeats < 2 OR b.repeats < 2 THEN 'noise unknown (one repeat)'
         WHEN b.lo > a.hi THEN 'faster'
         WHEN b.hi < a.lo THEN 'slower'
         ELSE 'within noise'
       END AS verdict,
       b.acc - a.acc AS test_accuracy_change
FROM cells a
JOIN cells b ON b.config_key = a.config_key AND b.world_size = a.world_size
WHERE a.experiment_id = {experiment_a} AND b.experiment_id = {experiment_b}
ORDER BY a.model, a.config_key, a.world_size;
