-- Dynamic loss scaling in fp16 runs (precision = "fp16"), per run: how many
-- steps an overflow skipped, and the scale the steps' gradients had (from
-- step_numerics: rank 0's steps, every rank agrees).
--   run_id         the run
--   experiment     the experiment's name
--   experiment_id  the experiment
--   label          what sets the run's configuration apart within its experiment
--   world_size     ranks that trained
--   steps          rank 0's steps with a loss scale recorded
--   skipped_steps  steps skipped because a rank's gradients overflowed (the optimizer left the parameters be)
--   skipped_share  skipped_steps / steps
--   first_scale    the loss scale of the first recorded step (2^16 by DeepSpeed's default)
--   last_scale     the loss scale of the last recorded step
--   min_scale      the smallest loss scale any step had
CREATE VIEW loss_scaling AS
SELECT run_id, experiment, experiment_id, label, world_size, COUNT(*) AS steps,
       SUM(COALESCE(skipped, 0)) AS skipped_steps, SUM(COALESCE(skipped, 0)) * 1.0 / COUNT(*) AS skipped_share,
       MAX(first_scale) AS first_scale, MAX(last_scale) AS last_scale, MIN(loss_scale) AS min_scale
FROM (SELECT n.*, FIRST_VALUE(n.loss_scale) OVER by_step AS first_scale,
             LAST_VALUE(n.loss_scale) OVER by_step AS last_scale
      FROM step_numerics n
      WHERE n.loss_scale IS NOT NULL
      WINDOW by_step AS (PARTITION BY n.run_id ORDER BY n.step
                         ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
GROUP BY run_id;
