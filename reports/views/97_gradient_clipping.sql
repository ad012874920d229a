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
SELECT g.run_id, g.experiment, g.experiment_id, g.label, g.world_size,
       (SELECT CAST(TRIM(p.value, '"') AS REAL) FROM run_param p
        WHERE p.run_id = g.run_id AND p.key = 'gradient_clipping') AS max_norm,
       COUNT(*) AS steps, SUM(g.clip_factor < 1) AS clipped_steps,
       SUM(g.clip_factor < 1) * 1.0 / COUNT(*) AS clipped_share,
       MAX(g.first_norm) AS first_norm, MAX(g.last_norm) AS last_norm, AVG(g.grad_norm) AS mean_norm,
       MAX(g.grad_norm) AS largest_norm
FROM (SELECT n.*, FIRST_VALUE(n.grad_norm) OVER by_step AS first_norm,
             LAST_VALUE(n.grad_norm) OVER by_step AS last_norm
      FROM step_numerics n
      WHERE n.grad_norm IS NOT NULL
      WINDOW by_step AS (PARTITION BY n.run_id ORDER BY n.step
                         ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
     g
GROUP BY g.run_id;
