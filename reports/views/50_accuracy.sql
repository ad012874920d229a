-- Loss and accuracy per epoch, with what distinguishes the run.
--   run_id             the run (run.id)
--   experiment         the experiment's name
--   experiment_id      the experiment (experiment.id)
--   cell               the matrix cell, from 0
--   repeat             the repeat of the cell, from 0
--   label              what sets the configuration apart within its experiment, else the strategy
--   strategy           the strategy plugin
--   backend            the communication backend
--   model              the model, with its depth (resnet50)
--   dataset            the dataset plugin
--   world_size         ranks the run started with
--   global_batch_size  samples per optimizer step, all ranks
--   epoch              1-based
--   train_loss         mean loss over the epoch's trained samples, all ranks
--   train_accuracy     share of the epoch's trained samples classified right
--   test_loss          mean loss over the test split after the epoch
--   test_accuracy      share of the test split classified right after the epoch
CREATE VIEW accuracy AS
SELECT e.run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       r.strategy, r.backend, rm.model, r.dataset, r.world_size, r.global_batch_size, e.epoch,
       e.train_loss, e.train_accuracy, e.test_loss, e.test_accuracy
FROM epoch e
JOIN run r ON r.id = e.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id;
