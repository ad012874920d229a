-- What each recovery from a failed rank cost (recovery = "restart"), one row
-- per restart, beside the fault that caused it when one was injected
-- ([fault]; the newest fault event before the failure):
--   time_to_detect_s   fault -> the coordinator sees the failure; NULL without an injected fault
--   time_to_recover_s  failure -> the first step done after the restart (rank 0)
--   lost_steps         steps done past the checkpoint before the failure, run twice
-- Times are seconds since the run began, on the coordinator's clock.
CREATE VIEW recovery_cost AS
SELECT x.name AS experiment, r.experiment_id, r.id AS run_id, r.cell, r.repeat,
       COALESCE(r.label, r.strategy) AS label, rm.model, r.strategy, r.backend, r.world_size,
       t.mode, t.attempt, t.cause, t.resumed_step, t.lost_steps,
       t.fault_at_s, t.failed_at_s, t.failed_at_s - t.fault_at_s AS time_to_detect_s,
       t.restarted_at_s, t.recovered_at_s, t.recovered_at_s - t.failed_at_s AS time_to_recover_s
FROM (SELECT v.*,
             (SELECT MAX(e.at_s) FROM event e
              WHERE e.run_id = v.run_id AND e.kind = 'fault' AND e.at_s <= v.failed_at_s) AS fault_at_s,
             (SELECT MIN(e.at_s) FROM event e
              WHERE e.run_id = v.run_id AND e.kind = 'recovered' AND e.at_s >= v.restarted_at_s) AS recovered_at_s
      FROM recovery v) t
JOIN run r ON r.id = t.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id;
