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
SELECT n.run_id, n.experiment, n.experiment_id, n.label, n.world_size, COUNT(*) AS steps,
       SUM(COALESCE(n.skipped, 0)) AS skipped_steps, SUM(COALESCE(n.skipped, 0)) * 1.0 / COUNT(*) AS skipped_share,
       (SELECT f.loss_scale FROM step_numerics f WHERE f.run_id = n.run_id AND f.loss_scale IS NOT NULL
        ORDER BY f.step LIMIT 1) AS first_scale,
       (SELECT f.loss_scale FROM step_numerics f WHERE f.run_id = n.run_id AND f.loss_scale IS NOT NULL
        ORDER BY f.step DESC LIMIT 1) AS last_scale,
       MIN(n.loss_scale) AS min_scale
FROM step_numerics n
WHERE n.loss_scale IS NOT NULL
GROUP BY n.run_id;
