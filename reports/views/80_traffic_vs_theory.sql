-- Bytes a rank moved per training step (nccl-tests' bus bytes, steady
-- epochs), in units of the model: moved_psi = bytes / (4Ψ (N-1)/N), which
-- a bandwidth-optimal all-reduce of every gradient puts at 2. Theory:
-- all-reduce based strategies and ZeRO stages 1-2 with a reduce-scatter
-- (reduce-scatter Ψ + all-gather Ψ) move 2Ψ; ZeRO stage 3 moves 3Ψ (two
-- parameter all-gathers and a reduce-scatter: 1.5x); stages 1-2 that
-- all-reduce and keep a slice (reduce_scatter = false) move 3Ψ as well.
-- Fusion adds its negotiation, a few bytes per cycle. NULL at one rank.
CREATE VIEW traffic_vs_theory AS
WITH e AS (
  SELECT e.run_id, AVG(e.step_bus_bytes) AS step_bus_bytes
  FROM epoch e
  WHERE e.step_bus_bytes IS NOT NULL
    AND (e.epoch > 1 OR NOT EXISTS (SELECT 1 FROM epoch x WHERE x.run_id = e.run_id AND x.epoch > 1))
  GROUP BY e.run_id
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
       CASE WHEN r.stage = 3 OR r.reduce_scatter = 'false' THEN 3 ELSE 2 END AS theory_psi
FROM r
JOIN e ON e.run_id = r.id
WHERE r.world_size > 1;
