-- Report query (dtbench report --compare A B): the cells two experiments
-- share (same configuration and world size), B against A. A change counts
-- only beyond the repeat noise: B's whole range of repeats [min, max] must
-- lie above A's (faster) or below it (slower); with a single repeat on
-- either side the noise is unknown and the verdict says so.
-- {experiment_a} and {experiment_b} are replaced by the two ids.
WITH cells AS (
  SELECT experiment_id, config_key, model, strategy, backend, world_size, repeats,
         median_samples_per_s AS thr, min_samples_per_s AS lo, max_samples_per_s AS hi,
         mean_test_accuracy AS acc
  FROM repeat_stats
  WHERE experiment_id IN ({experiment_a}, {experiment_b})
)
SELECT a.config_key, a.model, a.strategy, a.backend, a.world_size,
       a.repeats AS repeats_a, b.repeats AS repeats_b,
       a.thr AS a_samples_per_s, b.thr AS b_samples_per_s,
       b.thr / a.thr - 1 AS change,
       MAX((a.hi - a.lo) / a.thr, (b.hi - b.lo) / b.thr) AS noise,
       CASE
         WHEN a.repeats < 2 OR b.repeats < 2 THEN
           CASE WHEN b.thr > a.thr THEN 'faster (noise unknown)' ELSE 'slower (noise unknown)' END
         WHEN b.lo > a.hi THEN 'faster'
         WHEN b.hi < a.lo THEN 'slower'
         ELSE 'within noise'
       END AS verdict,
       b.acc - a.acc AS test_accuracy_change
FROM cells a
JOIN cells b ON b.config_key = a.config_key AND b.world_size = a.world_size
WHERE a.experiment_id = {experiment_a} AND b.experiment_id = {experiment_b}
ORDER BY a.model, a.config_key, a.world_size;
