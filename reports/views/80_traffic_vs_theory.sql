-- Bytes a rank moved per training step against what its strategy's
-- algorithm should move, in units of the model: moved_psi = bytes / (4Ψ
-- (N-1)/N), which a bandwidth-optimal all-reduce of every f32 gradient puts
-- at 2. Bytes are nccl-tests' bus bytes per step, the mean over the ranks,
-- in the steady epochs.
-- The theory is the strategy's own where it states one: the bus bytes per
-- step its algorithm should move, reported each step as the metric
-- `theory.bus_bytes` (docs/strategy-sdk.md), so a compressing or sparsifying
-- strategy is held against its own formula. Where a strategy states none,
-- dtbench's rule for the built-in algorithms: all-reduce based strategies and
-- ZeRO stages 1-2 with a reduce-scatter (reduce-scatter Ψ + all-gather Ψ)
-- move 2Ψ; ZeRO stage 3 moves 3Ψ (two parameter all-gathers and a
-- reduce-scatter: 1.5x); stages 1-2 that all-reduce and keep a slice
-- (reduce_scatter = false) move 3Ψ as well. Fusion adds its negotiation, a
-- few bytes per cycle. One row per run of more than one rank.
--   run_id            the run
--   experiment        the experiment's name
--   experiment_id     the experiment
--   cell              the matrix cell the run belongs to
--   repeat            the run's repeat within its cell, from 0
--   label             what sets the run's configuration apart within its experiment
--   model             the model, with its depth (resnet50)
--   strategy          the strategy plugin
--   stage             ZeRO's stage (0 for other strategies)
--   world_size        ranks that trained (N)
--   param_elements    the model's parameter count (Ψ)
--   step_bus_bytes    bus bytes a rank moved per step (mean over the ranks), steady epochs
--   moved_psi         step_bus_bytes in units of 4Ψ (N-1)/N
--   theory_bus_bytes  bus bytes per step the strategy states its algorithm moves, as rank 0
--                     reported it (NULL: it states none)
--   theory_psi        the theory in the same units as moved_psi
--   theory_source     strategy (stated by the strategy itself) or rule (dtbench's rule above)
CREATE VIEW traffic_vs_theory AS
WITH e AS (
  SELECT e.run_id, AVG(e.step_bus_bytes) AS step_bus_bytes
  FROM epoch e
  WHERE e.step_bus_bytes IS NOT NULL
    AND (e.epoch > 1 OR NOT EXISTS (SELECT 1 FROM epoch x WHERE x.run_id = e.run_id AND x.epoch > 1))
  GROUP BY e.run_id
), stated AS (  -- the strategy's own theory: its metric per step of rank 0, steady epochs
  SELECT s.run_id, SUM(m.value) / COUNT(*) AS theory_bus_bytes
  FROM step s
  LEFT JOIN step_metric m ON m.run_id = s.run_id AND m.rank = s.rank AND m.step = s.step
   AND m.plugin = 'strategy' AND m.name = 'theory.bus_bytes'
  WHERE s.rank = 0
    AND (s.epoch > 1 OR NOT EXISTS (SELECT 1 FROM epoch x WHERE x.run_id = s.run_id AND x.epoch > 1))
  GROUP BY s.run_id
  HAVING COUNT(m.value) > 0
), r AS (
  SELECT r.*, x.name AS experiment, rm.model AS model_name, m.param_elements,
         CASE WHEN r.strategy = 'zero'
              THEN (SELECT CAST(p.value AS INTEGER) FROM run_param p
                    WHERE p.run_id = r.id AND p.key = 'strategy.zero.stage')
              ELSE 0 END AS stage,
         (SELECT p.value FROM run_param p WHERE p.run_id = r.id AND p.key = 'strategy.zero.reduce_scatter')
           AS reduce_scatter
  FROM run r
  JOIN memory m ON m.run_id = r.id AND m.rank = 0
  JOIN run_model rm ON rm.run_id = r.id
  JOIN experiment x ON x.id = r.experiment_id
)
SELECT r.id AS run_id, r.experiment, r.experiment_id, r.cell, r.repeat, COALESCE(r.label, r.strategy) AS label,
       r.model_name AS model, r.strategy, r.stage, r.world_size, r.param_elements,
       e.step_bus_bytes,
       e.step_bus_bytes / (4.0 * r.param_elements * (r.world_size - 1) / r.world_size) AS moved_psi,
       st.theory_bus_bytes,
       CASE WHEN st.theory_bus_bytes IS NOT NULL
            THEN st.theory_bus_bytes / (4.0 * r.param_elements * (r.world_size - 1) / r.world_size)
            WHEN r.stage = 3 OR r.reduce_scatter = 'false' THEN 3 ELSE 2 END AS theory_psi,
       CASE WHEN st.theory_bus_bytes IS NOT NULL THEN 'strategy' ELSE 'rule' END AS theory_source
FROM r
JOIN e ON e.run_id = r.id
LEFT JOIN stated st ON st.run_id = r.id
WHERE r.world_size > 1;
