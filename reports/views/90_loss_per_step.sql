-- Every optimizer step of every run (the step table, step_records = true):
-- the loss over all ranks' samples, and the pace, which the slowest rank
-- sets. Loss curve of one run:
--   SELECT step, loss FROM loss_per_step WHERE run_id = 7 ORDER BY step
-- Its columns:
--   run_id           the run (run.id)
--   experiment       the experiment's name
--   experiment_id    the experiment (experiment.id)
--   cell             the matrix cell, from 0
--   repeat           the repeat of the cell, from 0
--   label            what sets the configuration apart within its experiment, else the strategy
--   model            the model, with its depth (resnet50)
--   world_size       ranks the run started with
--   step             optimizer steps of the run before this one (from 0)
--   epoch            1-based
--   loss             mean loss over every rank's samples of the step
--   samples          samples the step trained, all ranks
--   step_ms          the slowest rank's wall time for the step: it sets the pace
--   comm_exposed_ms  exposed communication, mean over the ranks
--   ranks            ranks that stored the step (the world's size at that step)
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
