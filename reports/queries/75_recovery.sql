-- Report query: each recovery from a failed rank (recovery = "restart" or
-- "elastic"), from the recovery_cost view: what failed, the time from an
-- injected fault to its detection and from the failure to the first step
-- done again, the steps run twice, the ranks it went on with and the
-- throughput before and after. One row per restart or reset.
SELECT c.experiment_id, r.config_key, c.repeat, c.mode, c.attempt, c.cause, c.resumed_step, c.lost_steps,
       c.world_size_after, c.time_to_detect_s, c.time_to_recover_s, c.samples_per_s_before,
       c.samples_per_s_after
FROM recovery_cost c
JOIN run r ON r.id = c.run_id
WHERE c.experiment_id IN ({experiments})
ORDER BY c.experiment_id, r.config_key, c.repeat, c.attempt;
