-- Elastic against restart (Horovod Elastic's way against torchrun's), per
-- experiment, model, strategy and world size: how often each recovery
-- mode recovered, and what a recovery cost on average — the time to detect
-- the failure and to recover from it, the steps run twice, and the
-- throughput before and after (elastic goes on smaller) — from
-- recovery_cost, beside how the runs ended.
--   experiment             the experiment's name
--   experiment_id          the experiment (experiment.id)
--   model                  the model, with its depth (resnet50)
--   strategy               the strategy plugin
--   backend                the communication backend
--   world_size             ranks the runs started with
--   mode                   restart or elastic
--   recoveries             recoveries of this mode (restarts or resets)
--   runs, runs_ok          runs of the mode with at least one recovery, and those that ended well
--   time_to_detect_s       fault -> the coordinator sees the failure, mean over the recoveries
--   time_to_recover_s      failure -> the first step done after it, mean over the recoveries
--   max_time_to_recover_s  the longest of them
--   lost_steps             steps run twice, mean over the recoveries
--   world_size_after       ranks the runs went on with, mean over the recoveries
--   samples_per_s_before   throughput before the recovery, mean over the recoveries
--   samples_per_s_after    throughput after it, mean over the recoveries
--   test_accuracy          their final test accuracy (the last epoch's), mean over those runs
--   clean_test_accuracy    the same of the experiment's runs of this configuration and mode without
--                          a fault ([fault] kind = "none"), that ended well: what the fault cost
CREATE VIEW recovery_by_mode AS
SELECT c.experiment, c.experiment_id, c.model, c.strategy, c.backend, c.world_size, c.mode,
       COUNT(*) AS recoveries, COUNT(DISTINCT c.run_id) AS runs,
       COUNT(DISTINCT CASE WHEN r.status = 'ok' THEN c.run_id END) AS runs_ok,
       AVG(c.time_to_detect_s) AS time_to_detect_s, AVG(c.time_to_recover_s) AS time_to_recover_s,
       MAX(c.time_to_recover_s) AS max_time_to_recover_s, AVG(c.lost_steps) AS lost_steps,
       AVG(c.world_size_after) AS world_size_after,
       AVG(c.samples_per_s_before) AS samples_per_s_before, AVG(c.samples_per_s_after) AS samples_per_s_after,
       (SELECT AVG(e.test_accuracy) FROM epoch e
        WHERE e.run_id IN (SELECT v.run_id FROM recovery v JOIN run x ON x.id = v.run_id
                           JOIN run_model m ON m.run_id = x.id
                           WHERE v.mode = c.mode AND x.experiment_id = c.experiment_id AND m.model = c.model
                             AND x.strategy = c.strategy AND x.backend = c.backend
                             AND x.world_size = c.world_size)
          AND e.epoch = (SELECT MAX(l.epoch) FROM epoch l WHERE l.run_id = e.run_id)) AS test_accuracy,
       (SELECT AVG(e.test_accuracy) FROM run x
        JOIN run_model m ON m.run_id = x.id
        JOIN run_param pr ON pr.run_id = x.id AND pr.key = 'recovery' AND pr.value = '"' || c.mode || '"'
        JOIN run_param pf ON pf.run_id = x.id AND pf.key = 'fault.kind' AND pf.value = '"none"'
        JOIN epoch e ON e.run_id = x.id AND e.epoch = (SELECT MAX(l.epoch) FROM epoch l WHERE l.run_id = x.id)
        WHERE x.experiment_id = c.experiment_id AND m.model = c.model AND x.strategy = c.strategy
          AND x.backend = c.backend AND x.world_size = c.world_size AND x.status = 'ok') AS clean_test_accuracy
FROM recovery_cost c
JOIN run r ON r.id = c.run_id
GROUP BY c.experiment_id, c.model, c.strategy, c.backend, c.world_size, c.mode;
