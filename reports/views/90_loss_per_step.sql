-- Every optimizer step of every run (the step table, step_records = true):
-- the loss over all ranks' samples, and the pace, which the slowest rank
-- sets. Loss curve of one run:
--   SELECT step, loss FROM loss_per_step WHERE run_id = 7 ORDER BY step
CREATE VIEW loss_per_step AS
SELECT s.run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       rm.model, r.world_size, s.step, s.epoch,
       SUM(s.loss * s.samples) / SUM(s.samples) AS loss,
       SUM(s.samples) AS samples,
       1000.0 * MAX(s.seconds) AS step_ms,          -- the slowest rank
       1000.0 * AVG(s.comm_exposed_s) AS comm_exposed_ms,
       COUNT(*) AS ranks
FROM step s
JOIN run r ON r.id = s.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id
GROUP BY s.run_id, s.step;
