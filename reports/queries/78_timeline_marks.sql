-- Report query: what happened to the runs of 77_timeline.sql, to mark on
-- their throughput over time: each injected fault, each failure the
-- coordinator saw, each restart or elastic reset or join, and the first
-- step done after each (recovered), in s since the run began; across
-- hosts, the hosts discovery found or dropped, those blacklisted, and the
-- workers that left with a host.
WITH faulted AS (SELECT run_id FROM recovery UNION SELECT run_id FROM event WHERE kind = 'fault'
                 UNION SELECT run_id FROM world_change)
SELECT r.experiment_id, e.run_id, e.kind, e.at_s, e.detail
FROM faulted f
JOIN run r ON r.id = f.run_id
JOIN event e ON e.run_id = f.run_id
WHERE r.experiment_id IN ({experiments})
  AND e.kind IN ('fault', 'failure', 'restart', 'reset', 'join', 'recovered', 'start', 'leave', 'blacklist',
                 'host_added', 'host_removed')
ORDER BY e.run_id, e.at_s;
