-- Time to the matrix's target accuracy, per run: the field's second way to
-- compare systems (MLPerf Training, DAWNBench), beside throughput at equal
-- accuracy. One row per run whose matrix set `target_accuracy`; the figures
-- are NULL when the run never reached it.
--   run_id             the run
--   experiment         the experiment's name
--   experiment_id      the experiment
--   cell               the matrix cell the run belongs to
--   repeat             the run's repeat within its cell, from 0
--   label              what sets the run's configuration apart within its experiment
--   model              the model, with its depth (resnet50)
--   dataset            the dataset plugin
--   world_size         ranks that trained
--   target_accuracy    the test accuracy the matrix asked for (fraction)
--   reached            1 when an epoch's test accuracy reached the target, else 0
--   epoch              the first epoch (from 1) whose test accuracy reached it
--   seconds_to_target  training wall time until that epoch's end (evaluation excluded)
--   steps_to_target    optimizer steps until that epoch's end
CREATE VIEW time_to_target AS
WITH target AS (
  SELECT p.run_id, p.value_num AS target_accuracy
  FROM run_param p
  WHERE p.key = 'target_accuracy' AND p.value_num > 0
), running AS (
  SELECT e.run_id, e.epoch, e.test_accuracy,
         SUM(e.seconds) OVER w AS elapsed_s, SUM(e.steps) OVER w AS elapsed_steps
  FROM epoch e
  JOIN target t ON t.run_id = e.run_id
  WINDOW w AS (PARTITION BY e.run_id ORDER BY e.epoch)
), first_reach AS (
  SELECT g.run_id, MIN(g.epoch) AS epoch
  FROM running g
  JOIN target t ON t.run_id = g.run_id
  WHERE g.test_accuracy >= t.target_accuracy
  GROUP BY g.run_id
)
SELECT r.id AS run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat,
       COALESCE(r.label, r.strategy) AS label, rm.model, r.dataset, r.world_size, t.target_accuracy,
       CASE WHEN f.epoch IS NULL THEN 0 ELSE 1 END AS reached, f.epoch,
       g.elapsed_s AS seconds_to_target, g.elapsed_steps AS steps_to_target
FROM target t
JOIN run r ON r.id = t.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id
LEFT JOIN first_reach f ON f.run_id = r.id
LEFT JOIN running g ON g.run_id = f.run_id AND g.epoch = f.epoch;
