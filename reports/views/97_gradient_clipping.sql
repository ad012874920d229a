-- Gradient clipping by global norm (gradient_clipping > 0), per run: the
-- gradients' L2 norm over every rank before clipping, and how often it was
-- above the setting (the metrics in step_metric, plugin 'clipping':
-- grad_norm and clip_factor, one each per applied step and rank; every rank
-- agrees, rank 0's counted).
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
SELECT m.run_id, x.name AS experiment, r.experiment_id, COALESCE(r.label, r.strategy) AS label, r.world_size,
       (SELECT CAST(TRIM(p.value, '"') AS REAL) FROM run_param p
        WHERE p.run_id = m.run_id AND p.key = 'gradient_clipping') AS max_norm,
       COUNT(*) AS steps,
       SUM(CASE WHEN k.value < 1 THEN 1 ELSE 0 END) AS clipped_steps,
       SUM(CASE WHEN k.value < 1 THEN 1 ELSE 0 END) * 1.0 / COUNT(*) AS clipped_share,
       (SELECT f.value FROM step_metric f
        WHERE f.run_id = m.run_id AND f.rank = 0 AND f.plugin = 'clipping' AND f.name = 'grad_norm'
        ORDER BY f.step LIMIT 1) AS first_norm,
       (SELECT l.value FROM step_metric l
        WHERE l.run_id = m.run_id AND l.rank = 0 AND l.plugin = 'clipping' AND l.name = 'grad_norm'
        ORDER BY l.step DESC LIMIT 1) AS last_norm,
       AVG(m.value) AS mean_norm,
       MAX(m.value) AS largest_norm
FROM step_metric m
JOIN run r ON r.id = m.run_id
JOIN experiment x ON x.id = r.experiment_id
LEFT JOIN step_metric k
  ON k.run_id = m.run_id AND k.rank = m.rank AND k.step = m.step AND k.plugin = 'clipping' AND k.name = 'clip_factor'
WHERE m.plugin = 'clipping' AND m.name = 'grad_norm' AND m.rank = 0
GROUP BY m.run_id;
