-- Report query: where a training step's time goes, per configuration and
-- world size, averaged over the repeats (steady epochs only): data loading,
-- forward, backward, communication not hidden behind compute, optimizer,
-- and the rest. hidden_share is the part of all communication that overlap hid.
SELECT r.experiment_id, r.config_key, r.model, r.world_size, COUNT(*) AS runs,
       AVG(b.data_ms) AS data_ms, AVG(b.forward_ms) AS forward_ms, AVG(b.backward_ms) AS backward_ms,
       AVG(b.comm_exposed_ms) AS comm_exposed_ms, AVG(b.optimizer_ms) AS optimizer_ms,
       AVG(MAX(b.other_ms, 0)) AS other_ms, AVG(b.step_ms) AS step_ms,
       AVG(b.comm_hidden_share) AS comm_hidden_share
FROM step_breakdown b
JOIN run r ON r.id = b.run_id
WHERE r.status = 'ok' AND r.experiment_id IN ({experiments})
GROUP BY r.experiment_id, r.config_key, r.world_size
ORDER BY r.experiment_id, r.model, r.config_key, r.world_size;
