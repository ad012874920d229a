-- One row per run with the field's headline figures. Steady-state figures
-- leave out the first epoch (warm-up) when there is more than one. label
-- says what sets the run's configuration apart within its experiment;
-- loaded = 1 when other processes or the hypervisor took CPU while it ran
-- (competing_cpus, steal_share; competing_processes names the busiest
-- others): its figures are suspect.
CREATE VIEW run_summary AS
WITH per_run AS (
  SELECT run_id,
         COUNT(*) AS epochs,
         SUM(CASE WHEN epoch > 1 OR n = 1 THEN samples END) AS steady_samples,
         SUM(CASE WHEN epoch > 1 OR n = 1 THEN seconds END) AS steady_seconds,
         SUM(CASE WHEN epoch > 1 OR n = 1 THEN steps END) AS steady_steps,
         MAX(CASE WHEN epoch = 1 THEN seconds END) AS first_epoch_s,
         MAX(epoch) AS last_epoch
  FROM (SELECT e.*, COUNT(*) OVER (PARTITION BY run_id) AS n FROM epoch e)
  GROUP BY run_id
)
SELECT r.id AS run_id, x.name AS experiment, r.experiment_id, r.cell, r.repeat,
       COALESCE(r.label, r.strategy) AS label, r.config_key,
       r.model, r.dataset, r.strategy, r.backend, r.world_size, r.batch_size, r.global_batch_size,
       r.status, r.error, p.epochs,
       p.steady_samples / p.steady_seconds AS samples_per_s,
       p.steady_samples / p.steady_seconds / r.world_size AS samples_per_s_per_rank,
       1000.0 * p.steady_seconds / p.steady_steps AS ms_per_step,
       p.first_epoch_s,
       p.steady_seconds / (p.epochs - (p.epochs > 1)) AS steady_epoch_s,
       last.test_accuracy AS final_test_accuracy,
       last.train_loss AS final_train_loss,
       r.loaded, r.competing_cpus, r.competing_processes, r.steal_share, r.load_avg
FROM run r
JOIN experiment x ON x.id = r.experiment_id
LEFT JOIN per_run p ON p.run_id = r.id
LEFT JOIN epoch last ON last.run_id = r.id AND last.epoch = p.last_epoch;
