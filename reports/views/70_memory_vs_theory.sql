-- Per-rank memory as the strategy laid it out (param, grad and optimizer
-- bytes), against the ZeRO paper's formulas in fp32: with Ψ parameters, N
-- ranks and K bytes of optimizer state per parameter (4 x state_floats:
-- 4 for SGD with momentum, 8 for Adam), a replica holds 4Ψ + 4Ψ + KΨ;
-- ZeRO stage 1 4Ψ + 4Ψ + KΨ/N, stage 2 4Ψ + (4 + K)Ψ/N, stage 3
-- (4 + 4 + K)Ψ/N. ratio = measured / theory (padding to multiples of N and
-- stage 3's persistent small layers put it slightly above 1).
-- Beside the ledger, what the OS saw: each rank's peak RSS, the peak RSS of
-- the same rank under allreduce in the same experiment (same model, dataset,
-- backend, world size, batch, parameter count and optimizer state per
-- parameter; mean over its repeats), the saving measured
-- against it and the saving the formulas predict. Buffers (buffer_bytes:
-- ZeRO's staging and gather pools) and the process itself (code, activations)
-- are in the RSS but not in the formulas.
--   run_id                    the run (run.id)
--   experiment                the experiment's name
--   experiment_id             the experiment (experiment.id)
--   cell                      the matrix cell, from 0
--   repeat                    the repeat of the cell, from 0
--   label                     what sets the configuration apart within its experiment, else the strategy
--   model                     the model, with its depth (resnet50)
--   strategy                  the strategy plugin
--   stage                     ZeRO's stage (strategy.zero.stage); 0 for every other strategy
--   world_size                N, the ranks
--   rank                      the rank measured
--   param_elements            Ψ, the model's parameter count
--   state_floats              optimizer state f32 values per parameter element (K = 4 x state_floats bytes)
--   param_bytes               parameters the rank holds
--   grad_bytes                gradients the rank holds
--   optimizer_bytes           optimizer state the rank holds
--   buffer_bytes              the strategy's other buffers (staging, gather pools): in no formula
--   state_bytes               param_bytes + grad_bytes + optimizer_bytes
--   theory_param_bytes        4Ψ, divided by N at stage 3
--   theory_grad_bytes         4Ψ, divided by N from stage 2
--   theory_optimizer_bytes    KΨ, divided by N from stage 1
--   theory_state_bytes        the three theory figures summed
--   ratio                     state_bytes / theory_state_bytes (slightly above 1: padding)
--   peak_rss_bytes            the rank's peak resident memory, as the OS saw it
--   allreduce_peak_rss_bytes  the same rank's under allreduce in the same experiment and setting,
--                             mean over its repeats; NULL without such a run
--   rss_saving_bytes          allreduce_peak_rss_bytes - peak_rss_bytes: the saving measured
--   theory_saving_bytes       (8 + K)Ψ - theory_state_bytes: the saving the formulas predict
CREATE VIEW memory_vs_theory AS
WITH m AS (
  SELECT mem.*, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
         r.strategy, rm.model, r.dataset, r.backend, r.batch_size, r.world_size AS n,
         CASE WHEN r.strategy = 'zero'
              THEN (SELECT CAST(p.value AS INTEGER) FROM run_param p
                    WHERE p.run_id = r.id AND p.key = 'strategy.zero.stage')
              ELSE 0 END AS stage
  FROM memory mem
  JOIN run r ON r.id = mem.run_id
  JOIN run_model rm ON rm.run_id = r.id
  JOIN experiment x ON x.id = r.experiment_id
  WHERE mem.param_elements IS NOT NULL
), replica AS (
  SELECT r.experiment_id, rm.model, r.dataset, r.backend, r.world_size, r.batch_size, mem.rank,
         mem.param_elements, mem.state_floats, AVG(mem.peak_rss_bytes) AS peak_rss_bytes
  FROM memory mem
  JOIN run r ON r.id = mem.run_id
  JOIN run_model rm ON rm.run_id = r.id
  WHERE r.strategy = 'allreduce' AND r.status = 'ok'
  GROUP BY r.experiment_id, rm.model, r.dataset, r.backend, r.world_size, r.batch_size, mem.rank,
           mem.param_elements, mem.state_floats
), t AS (
  SELECT m.*, rep.peak_rss_bytes AS allreduce_peak_rss_bytes,
         4.0 * m.param_elements / (CASE WHEN stage >= 3 THEN n ELSE 1 END) AS theory_param_bytes,
         4.0 * m.param_elements / (CASE WHEN stage >= 2 THEN n ELSE 1 END) AS theory_grad_bytes,
         4.0 * m.state_floats * m.param_elements / (CASE WHEN stage >= 1 THEN n ELSE 1 END) AS theory_optimizer_bytes
  FROM m
  LEFT JOIN replica rep ON rep.experiment_id = m.experiment_id AND rep.model = m.model
   AND rep.dataset = m.dataset AND rep.backend = m.backend AND rep.world_size = m.n
   AND rep.batch_size = m.batch_size AND rep.rank = m.rank AND rep.param_elements = m.param_elements
   AND rep.state_floats = m.state_floats
)
SELECT run_id, experiment, experiment_id, cell, repeat, label, model, strategy, stage, n AS world_size, rank, param_elements, state_floats,
       param_bytes, grad_bytes, optimizer_bytes, buffer_bytes,
       param_bytes + grad_bytes + optimizer_bytes AS state_bytes,
       theory_param_bytes, theory_grad_bytes, theory_optimizer_bytes,
       theory_param_bytes + theory_grad_bytes + theory_optimizer_bytes AS theory_state_bytes,
       (param_bytes + grad_bytes + optimizer_bytes)
         / (theory_param_bytes + theory_grad_bytes + theory_optimizer_bytes) AS ratio,
       peak_rss_bytes, allreduce_peak_rss_bytes,
       allreduce_peak_rss_bytes - peak_rss_bytes AS rss_saving_bytes,
       (8.0 + 4.0 * state_floats) * param_elements
         - (theory_param_bytes + theory_grad_bytes + theory_optimizer_bytes) AS theory_saving_bytes
FROM t;
