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
SELECT f.run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       r.strategy, r.backend, rm.model, r.world_size,
       1000.0 * f.steady_seconds / f.steady_steps AS step_ms,
       1000.0 * f.steady_data_s / f.steady_steps AS data_ms,
       1000.0 * f.steady_forward_s / f.steady_steps AS forward_ms,
       1000.0 * f.steady_backward_s / f.steady_steps AS backward_ms,
       1000.0 * f.steady_comm_exposed_s / f.steady_steps AS comm_exposed_ms,
       1000.0 * f.steady_comm_total_s / f.steady_steps AS comm_total_ms,
       1000.0 * MAX(f.steady_comm_total_s - f.steady_comm_exposed_s, 0) / f.steady_steps AS comm_hidden_ms,
       1000.0 * f.steady_optimizer_s / f.steady_steps AS optimizer_ms,
       1000.0 * (f.steady_seconds - COALESCE(f.steady_data_s, 0) - COALESCE(f.steady_forward_s, 0)
                 - COALESCE(f.steady_backward_s, 0) - COALESCE(f.steady_comm_exposed_s, 0)
                 - COALESCE(f.steady_optimizer_s, 0)) / f.steady_steps AS other_ms,
       MIN(MAX(f.steady_comm_exposed_s / f.steady_seconds, 0), 1) AS comm_exposed_share,
       CASE WHEN f.steady_bus_bytes > 0 AND f.steady_comm_total_s > 0
            THEN MIN(MAX(f.steady_comm_total_s - f.steady_comm_exposed_s, 0) / f.steady_comm_total_s, 1) END
         AS comm_hidden_share,
       r.loaded
FROM run_figure f
JOIN run r ON r.id = f.run_id
JOIN run_model rm ON rm.run_id = r.id
JOIN experiment x ON x.id = r.experiment_id;
