-- Loss and accuracy per epoch, with what distinguishes the run.
CREATE VIEW accuracy AS
SELECT e.run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       r.strategy, r.backend, rm.model, r.dataset, r.world_size, r.global_batch_size, e.epoch,
       e.train_loss, e.train_accuracy, e.test_loss, e.test_accuracy
FROM epoch e
JOIN run r ON r.id = e.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id;
