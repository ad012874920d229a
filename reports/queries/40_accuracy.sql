-- Report query: loss and accuracy per epoch, per configuration and world
-- size, averaged over the repeats (with the spread of test accuracy).
SELECT r.experiment_id, r.config_key, r.model, r.world_size, a.epoch, COUNT(*) AS runs,
       AVG(a.train_loss) AS train_loss, AVG(a.test_loss) AS test_loss,
       AVG(a.train_accuracy) AS train_accuracy, AVG(a.test_accuracy) AS test_accuracy,
       MIN(a.test_accuracy) AS min_test_accuracy, MAX(a.test_accuracy) AS max_test_accuracy
FROM accuracy a
JOIN run r ON r.id = a.run_id
WHERE r.status = 'ok' AND r.experiment_id IN ({experiments})
GROUP BY r.experiment_id, r.config_key, r.world_size, a.epoch
ORDER BY r.experiment_id, r.model, r.config_key, r.world_size, a.epoch;
