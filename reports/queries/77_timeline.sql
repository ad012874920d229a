-- Report query: throughput over time of every run that met a fault or
-- recovered from one (a [fault] event, or a recovery row), or whose
-- elastic world changed (a world_change row: a join, hosts that came or went): one point per
-- step, when it ended on the run's clock (s since the run began; the
-- slowest rank's end), with all ranks' samples over its slowest rank's
-- time. A recovery's gap shows as the time between two points. Read from
-- those runs alone (the step table's key leads with the run).
WITH faulted AS (SELECT run_id FROM recovery UNION SELECT run_id FROM event WHERE kind = 'fault'
                 UNION SELECT run_id FROM world_change)
SELECT r.experiment_id, r.config_key, r.repeat, s.run_id, s.step, MAX(s.ended_at_s) AS at_s,
       SUM(s.samples) / MAX(s.seconds) AS samples_per_s, COUNT(*) AS ranks
FROM faulted f
JOIN run r ON r.id = f.run_id
JOIN step s ON s.run_id = f.run_id
WHERE r.experiment_id IN ({experiments}) AND s.ended_at_s IS NOT NULL
GROUP BY s.run_id, s.step
ORDER BY r.experiment_id, r.config_key, r.repeat, s.step;
