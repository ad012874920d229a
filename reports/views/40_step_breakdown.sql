-- Where a step's time goes, per run, in ms per step (steady epochs); the
-- phases sum to step_ms (other_ms is what no phase holds: the loop itself).
--   comm_exposed_ms  the training thread blocked on communication, in any
--                    phase: finish_backward, and every wait in forward,
--                    backward or the strategy's step (taken out of those)
--   comm_total_ms    the backend's busy time, overlapped or not
--   comm_hidden_ms   total - exposed, never below 0
-- Shares lie in [0, 1]; comm_hidden_share is NULL where nothing crossed
-- the network (one rank) or the backend does not count its busy time. On a
-- CPU the backend's threads share cores with compute: "hidden" time is
-- overlapped, not free (docs/comparing-strategies.md).
CREATE VIEW step_breakdown AS
WITH steady AS (
  SELECT e.*, COUNT(*) OVER (PARTITION BY run_id) AS n FROM epoch e
), sums AS (
  SELECT run_id, SUM(steps) AS steps, SUM(seconds) AS seconds, SUM(data_s) AS data_s,
         SUM(forward_s) AS forward_s, SUM(backward_s) AS backward_s, SUM(comm_exposed_s) AS comm_exposed_s,
         SUM(comm_total_s) AS comm_total_s, SUM(optimizer_s) AS optimizer_s,
         SUM(step_bus_bytes * steps) AS bus_bytes
  FROM steady
  WHERE epoch > 1 OR n = 1
  GROUP BY run_id
)
SELECT s.run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       r.strategy, r.backend, r.model, r.world_size,
       1000.0 * s.seconds / s.steps AS step_ms,
       1000.0 * s.data_s / s.steps AS data_ms,
       1000.0 * s.forward_s / s.steps AS forward_ms,
       1000.0 * s.backward_s / s.steps AS backward_ms,
       1000.0 * s.comm_exposed_s / s.steps AS comm_exposed_ms,
       1000.0 * s.comm_total_s / s.steps AS comm_total_ms,
       1000.0 * MAX(s.comm_total_s - s.comm_exposed_s, 0) / s.steps AS comm_hidden_ms,
       1000.0 * s.optimizer_s / s.steps AS optimizer_ms,
       1000.0 * (s.seconds - COALESCE(s.data_s, 0) - COALESCE(s.forward_s, 0) - COALESCE(s.backward_s, 0)
                 - COALESCE(s.comm_exposed_s, 0) - COALESCE(s.optimizer_s, 0)) / s.steps AS other_ms,
       MIN(MAX(s.comm_exposed_s / s.seconds, 0), 1) AS comm_exposed_share,
       CASE WHEN s.bus_bytes > 0 AND s.comm_total_s > 0
            THEN MIN(MAX(s.comm_total_s - s.comm_exposed_s, 0) / s.comm_total_s, 1) END AS comm_hidden_share,
       r.loaded
FROM sums s
JOIN run r ON r.id = s.run_id
JOIN experiment x ON x.id = r.experiment_id;
