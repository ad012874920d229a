-- Report query: what happened to the runs of 77_timeline.sql, to mark on
-- their throughput over time: each injected fault, each failure the
-- coordinator saw, each restart or elastic reset or join, and the first
-- step done after each (recovered), in s since the run began.
WITH faulted AS (SELECT run_id FROM recovery UNION SELECT run_id FROM event WHERE kind = 'fault')
SELECT r.experiment_id, e.run_id, e.kind, e.at_s, e.detail
FROM faulted f
JOIN run r ON r.id = f.run_id
JOIN event e ON e.run_id = f.run_id
WHERE r.experiment_id IN ({experiments})
  AND e.kind IN ('fault', 'failure', 'restart', 'reset', 'join', 'recovered')
ORDER BY e.run_id, e.at_s;
