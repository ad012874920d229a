-- Where a step's time goes, per run, in ms per step (steady epochs), and the
-- share of the step that is exposed communication.
CREATE VIEW step_breakdown AS
WITH steady AS (
  SELECT e.*, COUNT(*) OVER (PARTITION BY run_id) AS n FROM epoch e
)
SELECT s.run_id, r.experiment_id, r.cell, r.repeat, r.strategy, r.backend, r.model, r.world_size,
       1000.0 * SUM(s.seconds) / SUM(s.steps) AS step_ms,
       1000.0 * SUM(s.data_s) / SUM(s.steps) AS data_ms,
       1000.0 * SUM(s.forward_s) / SUM(s.steps) AS forward_ms,
       1000.0 * SUM(s.backward_s) / SUM(s.steps) AS backward_ms,
       1000.0 * SUM(s.comm_exposed_s) / SUM(s.steps) AS comm_exposed_ms,
       1000.0 * SUM(s.comm_total_s) / SUM(s.steps) AS comm_total_ms,
       1000.0 * SUM(s.optimizer_s) / SUM(s.steps) AS optimizer_ms,
       1000.0 * (SUM(s.seconds) - COALESCE(SUM(s.data_s), 0) - COALESCE(SUM(s.forward_s), 0)
                 - COALESCE(SUM(s.backward_s), 0) - COALESCE(SUM(s.comm_exposed_s), 0)
                 - COALESCE(SUM(s.optimizer_s), 0)) / SUM(s.steps) AS other_ms,
       SUM(s.comm_exposed_s) / SUM(s.seconds) AS comm_exposed_share,
       1.0 - SUM(s.comm_exposed_s) / NULLIF(SUM(s.comm_total_s), 0) AS comm_hidden_share
FROM steady s
JOIN run r ON r.id = s.run_id
WHERE s.epoch > 1 OR s.n = 1
GROUP BY s.run_id;
