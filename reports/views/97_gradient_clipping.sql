-- Gradient clipping by global norm (gradient_clipping > 0), per run: the
-- gradients' L2 norm over every rank before clipping, and how often it was
-- above the setting (from step_numerics: rank 0's steps, every rank agrees).
--   run_id          the run
--   experiment      the experiment's name
--   experiment_id   the experiment
--   label           what sets the run's configuration apart within its experiment
--   world_size      ranks that trained
--   max_norm        the run's gradient_clipping: the norm gradients were clipped to
--   steps           rank 0's steps with a norm measured (an fp16 step skipped for an overflow has none)
--   clipped_steps   steps whose norm was above max_norm, so their gradients were scaled down
--   clipped_share   clipped_steps / steps
--   first_norm      the first measured step's norm, before clipping
--   last_norm       the last measured step's norm, before clipping
--   mean_norm       the mean norm over the measured steps
--   largest_norm    the largest norm any step had
CREATE VIEW gradient_clipping AS
SELECT n.run_id, n.experiment, n.experiment_id, n.label, n.world_size,
       (SELECT CAST(TRIM(p.value, '"') AS REAL) FROM run_param p
        WHERE p.run_id = n.run_id AND p.key = 'gradient_clipping') AS max_norm,
       COUNT(*) AS steps, SUM(n.clip_factor < 1) AS clipped_steps, SUM(n.clip_factor < 1) * 1.0 / COUNT(*) AS clipped_share,
       (SELECT f.grad_norm FROM step_numerics f WHERE f.run_id = n.run_id AND f.grad_norm IS NOT NULL
        ORDER BY f.step LIMIT 1) AS first_norm,
       (SELECT f.grad_norm FROM step_numerics f WHERE f.run_id = n.run_id AND f.grad_norm IS NOT NULL
        ORDER BY f.step DESC LIMIT 1) AS last_norm,
       AVG(n.grad_norm) AS mean_norm, MAX(n.grad_norm) AS largest_norm
FROM step_numerics n
WHERE n.grad_norm IS NOT NULL
GROUP BY n.run_id;
