-- Per-rank memory as the strategy laid it out (param, grad and optimizer
-- bytes), against the ZeRO paper's formulas: with Ψ parameters, N ranks,
-- E bytes per parameter and gradient element (4 in fp32, 2 in bf16 and
-- fp16) and K bytes of optimizer state per parameter (4 x state_floats: in
-- fp32 4 for SGD with momentum, 8 for Adam; in mixed precision the f32
-- master copy adds 4, so Adam's K is the paper's 12), a replica holds
-- EΨ + EΨ + KΨ; ZeRO stage 1 EΨ + EΨ + KΨ/N, stage 2 EΨ + (E + K)Ψ/N,
-- stage 3 (E + E + K)Ψ/N: in mixed precision the paper's (2 + 2 + K/N)Ψ,
-- (2 + (2 + K)/N)Ψ and (2 + 2 + K)Ψ/N. ratio = measured / theory (padding
-- to multiples of N and stage 3's persistent small layers put it slightly
-- above 1).
-- Beside the ledger, what the OS saw: each rank's peak RSS, the peak RSS of
-- the same rank under allreduce in the same experiment (same model, dataset,
-- backend, world size, batch, precision, parameter count and optimizer state
-- per parameter; mean over its repeats), the saving measured
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
--   precision                 fp32, bf16 or fp16 (run_param precision)
--   element_bytes             E: 4 in fp32, 2 in bf16 and fp16
--   rank                      the rank measured
--   param_elements            Ψ, the model's parameter count
--   state_floats              optimizer state f32 values per parameter element (K = 4 x state_floats bytes)
--   param_bytes               parameters the rank holds
--   grad_bytes                gradients the rank holds
--   optimizer_bytes           optimizer state the rank holds
--   buffer_bytes              the strategy's other buffers (staging, gather pools): in no formula
--   state_bytes               param_bytes + grad_bytes + optimizer_bytes
--   theory_param_bytes        EΨ, divided by N at stage 3
--   theory_grad_bytes         EΨ, divided by N from stage 2
--   theory_optimizer_bytes    KΨ, divided by N from stage 1
--   theory_state_bytes        the three theory figures summed
--   ratio                     state_bytes / theory_state_bytes (slightly above 1: padding)
--   peak_rss_bytes            the rank's peak resident memory, as the OS saw it
--   allreduce_peak_rss_bytes  the same rank's under allreduce in the same experiment and setting,
--                             mean over its repeats; NULL without such a run
--   rss_saving_bytes          allreduce_peak_rss_bytes - peak_rss_bytes: the saving measured
--   theory_saving_bytes       (2E + K)Ψ - theory_state_bytes: the saving the formulas predict
CREATE VIEW memory_vs_theory AS
WITH m AS (
  SELECT mem.*, x.name AS experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
         r.strategy, r.status, rm.model, r.dataset, r.backend, r.batch_size, r.world_size AS n,
         CASE WHEN r.strategy = 'zero'
              THEN (SELECT CAST(p.value AS INTEGER) FROM run_param p
                    WHERE p.run_id = r.id AND p.key = 'strategy.zero.stage')
              ELSE 0 END AS stage,
         COALESCE((SELECT TRIM(p.value, '"') FROM run_param p WHERE p.run_id = r.id AND p.key = 'precision'),
                  'fp32') AS precision
  FROM memory mem
  JOIN run r ON r.id = mem.run_id
  JOIN run_model rm ON rm.run_id = r.id
  JOIN experiment x ON x.id = r.experiment_id
  WHERE mem.param_elements IS NOT NULL
), e AS (
  SELECT m.*, CASE WHEN m.precision IN ('bf16', 'fp16') THEN 2.0 ELSE 4.0 END AS element_bytes FROM m
), replica AS (
  SELECT experiment_id, model, dataset, backend, n, batch_size, precision, rank, param_elements, state_floats,
         AVG(peak_rss_bytes) AS peak_rss_bytes
  FROM m
  WHERE strategy = 'allreduce' AND status = 'ok'
  GROUP BY experiment_id, model, dataset, backend, n, batch_size, precision, rank, param_elements, state_floats
), t AS (
  SELECT e.*, rep.peak_rss_bytes AS allreduce_peak_rss_bytes,
         e.element_bytes * e.param_elements / (CASE WHEN e.stage >= 3 THEN e.n ELSE 1 END) AS theory_param_bytes,
         e.element_bytes * e.param_elements / (CASE WHEN e.stage >= 2 THEN e.n ELSE 1 END) AS theory_grad_bytes,
         4.0 * e.state_floats * e.param_elements / (CASE WHEN e.stage >= 1 THEN e.n ELSE 1 END)
           AS theory_optimizer_bytes
  FROM e
  LEFT JOIN replica rep ON rep.experiment_id = e.experiment_id AND rep.model = e.model
   AND rep.dataset = e.dataset AND rep.backend = e.backend AND rep.n = e.n
   AND rep.batch_size = e.batch_size AND rep.precision = e.precision AND rep.rank = e.rank
   AND rep.param_elements = e.param_elements AND rep.state_floats = e.state_floats
)
SELECT run_id, experiment, experiment_id, cell, repeat, label, model, strategy, stage, n AS world_size, precision,
       element_bytes, rank, param_elements, state_floats,
       param_bytes, grad_bytes, optimizer_bytes, buffer_bytes,
       param_bytes + grad_bytes + optimizer_bytes AS state_bytes,
       theory_param_bytes, theory_grad_bytes, theory_optimizer_bytes,
       theory_param_bytes + theory_grad_bytes + theory_optimizer_bytes AS theory_state_bytes,
       (param_bytes + grad_bytes + optimizer_bytes)
         / (theory_param_bytes + theory_grad_bytes + theory_optimizer_bytes) AS ratio,
       peak_rss_bytes, allreduce_peak_rss_bytes,
       allreduce_peak_rss_bytes - peak_rss_bytes AS rss_saving_bytes,
       (2.0 * element_bytes + 4.0 * state_floats) * param_elements
         - (theory_param_bytes + theory_grad_bytes + theory_optimizer_bytes) AS theory_saving_bytes
FROM t;
