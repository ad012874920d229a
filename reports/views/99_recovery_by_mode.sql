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
--   hosts_blacklisted      elastic across hosts: hosts blacklisted in these runs after a worker of
--                          theirs failed (event kind 'blacklist'), beside the ranks' recoveries
--   hosts_added            hosts discovery found while these runs trained, those back after their
--                          cool-down included (event kind 'host_added')
--   hosts_removed          hosts discovery dropped while they trained (event kind 'host_removed')
--   world_size_min         the smallest world these runs were in: their start, or a new world
--                          (world_change) other than one a joiner was lost from
CREATE VIEW recovery_by_mode AS
WITH host_events AS (  -- per run
  SELECT run_id, SUM(kind = 'blacklist') AS blacklisted, SUM(kind = 'host_added') AS added,
         SUM(kind = 'host_removed') AS removed
  FROM event WHERE kind IN ('blacklist', 'host_added', 'host_removed') GROUP BY run_id),
hosts AS (  -- per configuration and mode, over its runs with a recovery
  SELECT g.experiment_id, g.model, g.strategy, g.backend, g.world_size, g.mode,
         COALESCE(SUM(e.blacklisted), 0) AS hosts_blacklisted, COALESCE(SUM(e.added), 0) AS hosts_added,
         COALESCE(SUM(e.removed), 0) AS hosts_removed,
         MIN(COALESCE((SELECT MIN(w.world_size) FROM world_change w WHERE w.run_id = g.run_id
                         AND w.kind <> 'join_lost' AND w.world_size < g.world_size), g.world_size)) AS world_size_min
  FROM (SELECT DISTINCT experiment_id, model, strategy, backend, world_size, mode, run_id FROM recovery_cost) g
  LEFT JOIN host_events e ON e.run_id = g.run_id
  GROUP BY g.experiment_id, g.model, g.strategy, g.backend, g.world_size, g.mode)
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
          AND x.backend = c.backend AND x.world_size = c.world_size AND x.status = 'ok') AS clean_test_accuracy,
       MAX(hs.hosts_blacklisted) AS hosts_blacklisted, MAX(hs.hosts_added) AS hosts_added,
       MAX(hs.hosts_removed) AS hosts_removed, MAX(hs.world_size_min) AS world_size_min
FROM recovery_cost c
JOIN run r ON r.id = c.run_id
LEFT JOIN hosts hs ON hs.experiment_id = c.experiment_id AND hs.model = c.model AND hs.strategy = c.strategy
  AND hs.backend = c.backend AND hs.world_size = c.world_size AND hs.mode = c.mode
GROUP BY c.experiment_id, c.model, c.strategy, c.backend, c.world_size, c.mode;
