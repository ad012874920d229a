-- Report query: each recovery from a failed rank (recovery = "restart"),
-- from the recovery_cost view: what failed, the time from an injected fault
-- to its detection and from the failure to the first step done again, and
-- the steps run twice. One row per restart.
SELECT c.experiment_id, r.config_key, c.repeat, c.attempt, c.cause, c.resumed_step, c.lost_steps,
       c.time_to_detect_s, c.time_to_recover_s
FROM recovery_cost c
JOIN run r ON r.id = c.run_id
WHERE c.experiment_id IN ({experiments})
ORDER BY c.experiment_id, r.config_key, c.repeat, c.attempt;
