-- Report query: memory one rank holds, by category (MB = 1e6 bytes), per
-- configuration and world size, averaged over ranks and repeats: what ZeRO
-- partitions (parameters, gradients, optimizer state) and the strategy's
-- buffers, with the process's peak resident set for scale.
SELECT r.experiment_id, r.config_key, r.model, r.world_size,
       AVG(m.param_bytes) / 1e6 AS param_mb, AVG(m.grad_bytes) / 1e6 AS grad_mb,
       AVG(m.optimizer_bytes) / 1e6 AS optimizer_mb, AVG(m.buffer_bytes) / 1e6 AS buffer_mb,
       AVG(m.peak_rss_bytes) / 1e6 AS peak_rss_mb
FROM memory m
JOIN run r ON r.id = m.run_id
WHERE r.status = 'ok' AND r.experiment_id IN ({experiments})
GROUP BY r.experiment_id, r.config_key, r.world_size
ORDER BY r.experiment_id, r.model, r.config_key, r.world_size;
