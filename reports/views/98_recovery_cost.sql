-- What each recovery from a failed rank cost, one row per recovery — a
-- restart (recovery = "restart": every worker started again from the last
-- checkpoint) or a reset (recovery = "elastic": the survivors roll back to
-- their last commit and go on in a new world) — beside the fault that
-- caused it when one was injected ([fault]; the newest fault event before
-- the failure). Times are seconds since the run began, on the
-- coordinator's clock.
--   experiment            the experiment's name
--   experiment_id         the experiment (experiment.id)
--   run_id                the run (run.id)
--   cell                  the matrix cell, from 0
--   repeat                the repeat of the cell, from 0
--   label                 what sets the configuration apart within its experiment, else the strategy
--   model                 the model, with its depth (resnet50)
--   strategy              the strategy plugin
--   backend               the communication backend
--   world_size            ranks the run started with
--   mode                  restart or elastic
--   attempt               1 for the run's first recovery (elastic: its reset count, joins included)
--   cause                 the failure, as the run's error would have read
--   resumed_step          the checkpoint's (elastic: commit's) step the run went on from
--   lost_steps            steps stored past the checkpoint or commit before the failure, run twice
--                         (NULL with step_records = false)
--   world_size_after      ranks the run went on with (elastic: the survivors)
--   fault_at_s            when the injected fault struck; NULL without one
--   failed_at_s           when the coordinator saw the failure
--   time_to_detect_s      fault -> the coordinator sees the failure; NULL without an injected fault
--   restarted_at_s        when the workers were started again (elastic: the new world written)
--   recovered_at_s        when the first step after the recovery was done (rank 0)
--   time_to_recover_s     failure -> the first step done after the recovery (rank 0)
--   samples_per_s_before  the run's throughput over the steps before resumed_step: each step, all
--                         ranks' samples over its slowest rank's time (NULL with step_records = false)
--   samples_per_s_after   the same over the steps from resumed_step on
CREATE VIEW recovery_cost AS
SELECT x.name AS experiment, r.experiment_id, r.id AS run_id, r.cell, r.repeat,
       COALESCE(r.label, r.strategy) AS label, rm.model, r.strategy, r.backend, r.world_size,
       t.mode, t.attempt, t.cause, t.resumed_step, t.lost_steps, t.world_size AS world_size_after,
       t.fault_at_s, t.failed_at_s, t.failed_at_s - t.fault_at_s AS time_to_detect_s,
       t.restarted_at_s, t.recovered_at_s, t.recovered_at_s - t.failed_at_s AS time_to_recover_s,
       (SELECT SUM(n) / SUM(s) FROM (SELECT SUM(st.samples) AS n, MAX(st.seconds) AS s FROM step st
                                     WHERE st.run_id = t.run_id AND st.step < t.resumed_step
                                     GROUP BY st.step)) AS samples_per_s_before,
       (SELECT SUM(n) / SUM(s) FROM (SELECT SUM(st.samples) AS n, MAX(st.seconds) AS s FROM step st
                                     WHERE st.run_id = t.run_id AND st.step >= t.resumed_step
                                     GROUP BY st.step)) AS samples_per_s_after
FROM (SELECT v.*,
             -- A fault strikes the first attempt only: later restarts have none of their own.
             CASE WHEN v.attempt = 1 THEN
               (SELECT MAX(e.at_s) FROM event e
                WHERE e.run_id = v.run_id AND e.kind = 'fault' AND e.at_s <= v.failed_at_s) END AS fault_at_s,
             -- This attempt's first step, before whatever failure ended it.
             (SELECT MIN(e.at_s) FROM event e
              WHERE e.run_id = v.run_id AND e.kind = 'recovered' AND e.at_s >= v.restarted_at_s
                AND e.at_s < COALESCE((SELECT MIN(f.at_s) FROM event f
                                       WHERE f.run_id = v.run_id AND f.kind = 'failure'
                                         AND f.at_s > v.restarted_at_s), 1e300)) AS recovered_at_s
      FROM recovery v) t
JOIN run r ON r.id = t.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id;
