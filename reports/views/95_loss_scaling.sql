-- Dynamic loss scaling in fp16 runs (precision = "fp16"), per run: how many
-- steps an overflow skipped, and the scale the steps' gradients had (the
-- loss scaler's metrics in step_metric, plugin 'precision': loss_scale and
-- skipped, one each per step and rank; every rank agrees, rank 0's counted).
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
SELECT m.run_id, x.name AS experiment, r.experiment_id, COALESCE(r.label, r.strategy) AS label, r.world_size,
       COUNT(*) AS steps,
       SUM(COALESCE(k.value, 0)) AS skipped_steps,
       SUM(COALESCE(k.value, 0)) * 1.0 / COUNT(*) AS skipped_share,
       (SELECT f.value FROM step_metric f
        WHERE f.run_id = m.run_id AND f.rank = 0 AND f.plugin = 'precision' AND f.name = 'loss_scale'
        ORDER BY f.step LIMIT 1) AS first_scale,
       (SELECT l.value FROM step_metric l
        WHERE l.run_id = m.run_id AND l.rank = 0 AND l.plugin = 'precision' AND l.name = 'loss_scale'
        ORDER BY l.step DESC LIMIT 1) AS last_scale,
       MIN(m.value) AS min_scale
FROM step_metric m
JOIN run r ON r.id = m.run_id
JOIN experiment x ON x.id = r.experiment_id
LEFT JOIN step_metric k
  ON k.run_id = m.run_id AND k.rank = m.rank AND k.step = m.step AND k.plugin = 'precision' AND k.name = 'skipped'
WHERE m.plugin = 'precision' AND m.name = 'loss_scale' AND m.rank = 0
GROUP BY m.run_id;
