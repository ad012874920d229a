-- Each stored projection (dtbench project --store) beside the measured runs
-- of the store it predicts: the same model (with its depth) and dataset, a
-- rank's batch and world size equal to the projection's samples per GPU
-- and GPUs, its strategy (zero-N: zero at stage N), on the projection's
-- emulated network ('' : none), finished ok; the error of the step time.
--   experiment       the measured run's experiment's name
--   experiment_id    the measured run's experiment
--   profile_run_id   the run the projection was made from
--   system           the system file's name, or the fitted sweep's
--   network          the fitted sweep's emulated network; '' for a system file
--   target           how one GPU's step was decided
--   strategy         the schedule projected
--   gpus             GPUs (ranks) projected
--   projected_ms     the projected step time
--   measured_run_id  a measured run it predicts
--   measured_ms      that run's step time (step_breakdown, steady epochs)
--   error            (projected - measured) / measured
-- (CROSS JOIN keeps the projections first: a store with none pays nothing.)
CREATE VIEW projection_error AS
SELECT b.experiment, b.experiment_id, p.run_id AS profile_run_id, p.system, p.network, p.target, p.strategy,
       p.gpus, 1000.0 * p.step_s AS projected_ms, b.run_id AS measured_run_id, b.step_ms AS measured_ms,
       (1000.0 * p.step_s - b.step_ms) / b.step_ms AS error
FROM projection p
CROSS JOIN run src ON src.id = p.run_id
CROSS JOIN run m ON m.dataset = src.dataset AND m.world_size = p.gpus AND m.status = 'ok' AND m.id <> src.id
CROSS JOIN step_breakdown b ON b.run_id = m.id
LEFT JOIN run_network n ON n.run_id = m.id
WHERE b.model = (SELECT model FROM run_model WHERE run_id = src.id)
  AND COALESCE(n.profile, '') = p.network
  AND (SELECT value FROM run_param WHERE run_id = m.id AND key = 'batch_size') = CAST(p.samples_per_gpu AS TEXT)
  AND (p.strategy = m.strategy
       OR p.strategy = 'zero-' || (SELECT value FROM run_param WHERE run_id = m.id AND key = 'strategy.zero.stage'));
