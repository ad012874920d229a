-- Elastic against restart (Horovod Elastic's way against torchrun's), per
-- experiment, model, strategy and world size: how often each recovery
-- mode recovered, and what a recovery cost on average — the time to detect
-- the failure and to recover from it, the steps run twice, and the
-- throughput before and after (elastic goes on smaller) — from
-- recovery_cost, beside how the runs ended.
--   recoveries            recoveries of this mode (restarts or resets)
--   runs, runs_ok         runs of the mode with at least one recovery, and those that ended well
CREATE VIEW recovery_by_mode AS
SELECT c.experiment, c.experiment_id, c.model, c.strategy, c.backend, c.world_size, c.mode,
       COUNT(*) AS recoveries, COUNT(DISTINCT c.run_id) AS runs,
       COUNT(DISTINCT CASE WHEN r.status = 'ok' THEN c.run_id END) AS runs_ok,
       AVG(c.time_to_detect_s) AS time_to_detect_s, AVG(c.time_to_recover_s) AS time_to_recover_s,
       MAX(c.time_to_recover_s) AS max_time_to_recover_s, AVG(c.lost_steps) AS lost_steps,
       AVG(c.world_size_after) AS world_size_after,
       AVG(c.samples_per_s_before) AS samples_per_s_before, AVG(c.samples_per_s_after) AS samples_per_s_after
FROM recovery_cost c
JOIN run r ON r.id = c.run_id
GROUP BY c.experiment_id, c.model, c.strategy, c.backend, c.world_size, c.mode;
