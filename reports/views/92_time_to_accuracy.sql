-- Training time until each epoch's end, with the best test accuracy so far,
-- so the time to any accuracy is one query (SELECT run_id, label,
-- MIN(elapsed_s) FROM time_to_accuracy WHERE best_test_accuracy >= 0.9 GROUP
-- BY run_id); time_to_target does it for the matrix's target_accuracy.
--   run_id              the run
--   experiment          the experiment's name
--   experiment_id       the experiment
--   cell                the matrix cell the run belongs to
--   repeat              the run's repeat within its cell, from 0
--   label               what sets the run's configuration apart within its experiment
--   model               the model, with its depth (resnet50)
--   world_size          ranks that trained
--   epoch               the epoch, from 1
--   elapsed_s           training wall time until the epoch's end (evaluation excluded)
--   test_accuracy       the epoch's test accuracy
--   best_test_accuracy  the best test accuracy up to this epoch
CREATE VIEW time_to_accuracy AS
SELECT e.run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       rm.model, r.world_size, e.epoch,
       SUM(e.seconds) OVER (PARTITION BY e.run_id ORDER BY e.epoch) AS elapsed_s,
       e.test_accuracy,
       MAX(e.test_accuracy) OVER (PARTITION BY e.run_id ORDER BY e.epoch) AS best_test_accuracy
FROM epoch e
JOIN run r ON r.id = e.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id;
